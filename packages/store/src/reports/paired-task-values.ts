import type { SqlRunner } from "../sql-runner.js";
import { type RunTables, runTablesOf } from "./run-tables.js";

/** One figure's per-task values in two runs, over the tasks both runs have, in task order. */
export interface PairedValues {
  metric: string;
  kind: "accuracy" | "scorer";
  current: number[];
  baseline: number[];
}

// Tasks counted in a run's accuracy (docs/architecture.md, "Selection"): correctness known
// for the first candidate, the pick (a task with nothing picked is unsolved) and the oracle.
// Both runs are read in one pass and paired by grouping on task_id (a run has one selection
// per task), never by joining a run's rows to the other's: a join of two derived row sets
// has no index, and a planner that misjudges their size (tables not analysed yet) picks a
// nested loop over them, quadratic in the tasks. Grouping costs a sort or a hash at worst.
const ACCURACY = `
  SELECT max(first_correct::int) FILTER (WHERE run_id = $1) AS a_pass1,
         max(picked::int) FILTER (WHERE run_id = $1) AS a_selected,
         max(any_correct::int) FILTER (WHERE run_id = $1) AS a_oracle,
         max(first_correct::int) FILTER (WHERE run_id = $2) AS b_pass1,
         max(picked::int) FILTER (WHERE run_id = $2) AS b_selected,
         max(any_correct::int) FILTER (WHERE run_id = $2) AS b_oracle
  FROM (
    SELECT run_id, task_id, first_correct, any_correct,
           CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END AS picked
    FROM selections
    WHERE run_id = ANY(ARRAY[$1::text, $2::text]) AND first_correct IS NOT NULL AND any_correct IS NOT NULL
      AND (selected_index IS NULL OR selected_correct IS NOT NULL)
  ) v
  GROUP BY task_id
  HAVING bool_or(run_id = $1) AND bool_or(run_id = $2)
  ORDER BY task_id`;

// A task's value for a scorer is the mean of its scored results (one per candidate);
// unscored results are left out, as in every mean the report shows. Paired by grouping, as
// above; each run's scores are joined to its samples on the partitions' primary key
// (run-tables.ts: only the two runs' partitions are read).
const scoredValuesSql = (side: "a" | "b", t: RunTables) => `
    SELECT '${side}' AS side, s.scorer, sm.task_id, s.value
    FROM ${t.scores} s
    JOIN ${t.samples} sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
    WHERE s.status = 'scored'`;

const scorerMeansSql = (a: RunTables, b: RunTables) => `
  SELECT scorer,
         avg(value) FILTER (WHERE side = 'a') AS a_value,
         avg(value) FILTER (WHERE side = 'b') AS b_value
  FROM (${scoredValuesSql("a", a)}
    UNION ALL ${scoredValuesSql("b", b)}
  ) v
  GROUP BY scorer, task_id
  HAVING bool_or(side = 'a') AND bool_or(side = 'b')
  ORDER BY scorer, task_id`;

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
    runTablesOf(runner, [runId, baselineRunId]).then((tables) =>
      runner.query<{ scorer: string; a_value: unknown; b_value: unknown }>(
        scorerMeansSql(tables.of(runId), tables.of(baselineRunId)),
      ),
    ),
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
