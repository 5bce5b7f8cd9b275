import type { SqlRunner } from "../sql-runner.js";

/** One figure's per-task values in two runs, over the tasks both runs have, in task order. */
export interface PairedValues {
  metric: string;
  kind: "accuracy" | "scorer";
  current: number[];
  baseline: number[];
}

// Tasks counted in a run's accuracy (docs/architecture.md, "Selection"): correctness known
// for the first candidate, the pick (a task with nothing picked is unsolved) and the oracle. Pairing is
// on task_id, through the selections primary key.
const ACCURACY = `
  WITH v AS (
    SELECT run_id, task_id, first_correct::int AS pass1, any_correct::int AS oracle,
           (CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END)::int AS selected
    FROM selections
    WHERE run_id = ANY(ARRAY[$1::text, $2::text]) AND first_correct IS NOT NULL AND any_correct IS NOT NULL
      AND (selected_index IS NULL OR selected_correct IS NOT NULL)
  )
  SELECT a.pass1 AS a_pass1, a.selected AS a_selected, a.oracle AS a_oracle,
         b.pass1 AS b_pass1, b.selected AS b_selected, b.oracle AS b_oracle
  FROM v a JOIN v b ON b.task_id = a.task_id AND b.run_id = $2
  WHERE a.run_id = $1
  ORDER BY a.task_id`;

// A task's value for a scorer is the mean of its scored results (one per candidate);
// unscored results are left out, as in every mean the report shows.
const SCORER_MEANS = `
  WITH t AS (
    SELECT s.run_id, sm.task_id, s.scorer, avg(s.value) AS value
    FROM scores s JOIN samples sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
    WHERE s.run_id = ANY(ARRAY[$1::text, $2::text]) AND s.status = 'scored'
    GROUP BY s.run_id, sm.task_id, s.scorer
  )
  SELECT a.scorer, a.value AS a_value, b.value AS b_value
  FROM t a JOIN t b ON b.task_id = a.task_id AND b.scorer = a.scorer AND b.run_id = $2
  WHERE a.run_id = $1
  ORDER BY a.scorer, a.task_id`;

const ACCURACY_METRICS = [
  ["pass@1", "pass1"],
  ["selected", "selected"],
  ["oracle", "oracle"],
] as const;

type AccuracyRow = Record<`${"a" | "b"}_${"pass1" | "selected" | "oracle"}`, number>;

/** pass@1, selected, oracle (when either run has selections) and each scorer's per-task mean. */
export async function pairedTaskValues(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
): Promise<PairedValues[]> {
  const [accuracy, scorers] = await Promise.all([
    runner.query<AccuracyRow>(ACCURACY, [runId, baselineRunId]),
    runner.query<{ scorer: string; a_value: unknown; b_value: unknown }>(SCORER_MEANS, [
      runId,
      baselineRunId,
    ]),
  ]);
  const values: PairedValues[] = [];
  if (accuracy.rows.length > 0) {
    for (const [metric, column] of ACCURACY_METRICS) {
      values.push({
        metric,
        kind: "accuracy",
        current: accuracy.rows.map((r) => Number(r[`a_${column}`])),
        baseline: accuracy.rows.map((r) => Number(r[`b_${column}`])),
      });
    }
  }
  const byScorer = new Map<string, PairedValues>();
  for (const row of scorers.rows) {
    let entry = byScorer.get(row.scorer);
    if (entry === undefined) {
      entry = { metric: row.scorer, kind: "scorer", current: [], baseline: [] };
      byScorer.set(row.scorer, entry);
      values.push(entry);
    }
    entry.current.push(Number(row.a_value));
    entry.baseline.push(Number(row.b_value));
  }
  return values;
}
