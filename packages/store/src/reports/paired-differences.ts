import type { CountedDifferences } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { type RunTables, runTablesOf } from "./run-tables.js";

/** One figure's per-task differences between two runs, over the tasks both runs have. */
export interface PairedDifferences {
  metric: string;
  kind: "accuracy" | "scorer";
  /** Counted in the database: a few rows per figure, never one per task. */
  counted: CountedDifferences;
}

// Tasks counted in a run's accuracy (docs/architecture.md, "Selection"): correctness known
// for the first candidate, the pick (a task with nothing picked is unsolved) and the oracle.
// Both runs are read in one pass and paired by grouping on task_id (a run has one selection
// per task), never by joining a run's rows to the other's: a join of two derived row sets
// has no index, and a planner that misjudges their size (tables not analysed yet) picks a
// nested loop over them, quadratic in the tasks. The paired tasks are then counted by
// difference (three values for a 0/1 figure), so what reaches the client does not grow
// with the tasks and nothing is sorted but the few counted rows.
const ACCURACY = `
  WITH paired AS (
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
      WHERE run_id = ANY(ARRAY[$1::text, $2::text]) AND first_correct IS NOT NULL
        AND any_correct IS NOT NULL AND (selected_index IS NULL OR selected_correct IS NOT NULL)
    ) v
    GROUP BY task_id
    HAVING bool_or(run_id = $1) AND bool_or(run_id = $2)
  )
  SELECT m.metric, m.a - m.b AS difference, count(*) AS tasks,
         sum(m.a) AS a_sum, sum(m.b) AS b_sum
  FROM paired
  CROSS JOIN LATERAL (VALUES (1, 'pass@1', a_pass1, b_pass1),
                             (2, 'selected', a_selected, b_selected),
                             (3, 'oracle', a_oracle, b_oracle)) AS m(position, metric, a, b)
  GROUP BY m.position, m.metric, m.a - m.b
  ORDER BY m.position, difference`;

// A task's value for a scorer is the mean of its scored results (one per candidate);
// unscored results are left out, as in every mean the report shows. Paired by grouping, as
// above; each run's scores are joined to its samples on the partitions' primary key
// (run-tables.ts: only the two runs' partitions are read). Counted by difference, as above:
// a scorer of a few levels has a few dozen differences, a continuous one at most a row per
// distinct value.
const scoredValuesSql = (side: "a" | "b", t: RunTables) => `
      SELECT '${side}' AS side, s.scorer, sm.task_id, s.value
      FROM ${t.scores} s
      JOIN ${t.samples} sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
      WHERE s.status = 'scored'`;

const scorerDifferencesSql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT scorer,
           avg(value) FILTER (WHERE side = 'a') AS a_value,
           avg(value) FILTER (WHERE side = 'b') AS b_value
    FROM (${scoredValuesSql("a", a)}
      UNION ALL ${scoredValuesSql("b", b)}
    ) v
    GROUP BY scorer, task_id
    HAVING bool_or(side = 'a') AND bool_or(side = 'b')
  )
  SELECT scorer AS metric, a_value - b_value AS difference, count(*) AS tasks,
         sum(a_value) AS a_sum, sum(b_value) AS b_sum
  FROM paired
  GROUP BY scorer, a_value - b_value
  ORDER BY scorer, difference`;

// The same pairing from the runs' task score rollups (written at completion with the same
// avg over the same rows): a row per task and scorer already, so the average of a side's
// one row is its value, exactly; no score is joined to its sample at report time.
const rolledUpValuesSql = (side: "a" | "b", t: RunTables) => `
      SELECT '${side}' AS side, scorer, task_id, value FROM ${t.task_score_rollups}`;

const rolledUpDifferencesSql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT scorer,
           avg(value) FILTER (WHERE side = 'a') AS a_value,
           avg(value) FILTER (WHERE side = 'b') AS b_value
    FROM (${rolledUpValuesSql("a", a)}
      UNION ALL ${rolledUpValuesSql("b", b)}
    ) v
    GROUP BY scorer, task_id
    HAVING bool_or(side = 'a') AND bool_or(side = 'b')
  )
  SELECT scorer AS metric, a_value - b_value AS difference, count(*) AS tasks,
         sum(a_value) AS a_sum, sum(b_value) AS b_sum
  FROM paired
  GROUP BY scorer, a_value - b_value
  ORDER BY scorer, difference`;

// Runs whose task score rollups were written (and not dropped by a resume since).
const TASKS_ROLLED_UP = `
  SELECT run_id FROM run_rollups WHERE run_id = ANY($1::text[]) AND tasks_rolled_up`;

interface CountRow {
  metric: string;
  difference: unknown;
  tasks: unknown;
  a_sum: unknown;
  b_sum: unknown;
}

/** Where a comparison's per-task scorer means come from. */
export type PairingSource = "task rollups" | "raw rows";

/**
 * pass@1, selected, oracle (when both runs have selections) and each scorer's per-task mean.
 * The scorer means come from the runs' task score rollups when both runs have them, else
 * from raw rows (`from` forces one: the benchmark measures both), with the same figures.
 */
export async function pairedDifferences(
  runner: SqlRunner,
  runId: string,
  baselineRunId: string,
  from?: PairingSource,
): Promise<PairedDifferences[]> {
  const scorerDifferences = async () => {
    const ids = [runId, baselineRunId];
    const [tables, rolled] = await Promise.all([
      runTablesOf(runner, ids),
      from === "raw rows" ? undefined : runner.query<{ run_id: string }>(TASKS_ROLLED_UP, [ids]),
    ]);
    const [a, b] = [tables.of(runId), tables.of(baselineRunId)];
    const rolledUp = new Set(rolled?.rows.map((r) => r.run_id));
    const fromRollups =
      from === "task rollups" || (rolledUp.has(runId) && rolledUp.has(baselineRunId));
    return runner.query<CountRow>(
      fromRollups ? rolledUpDifferencesSql(a, b) : scorerDifferencesSql(a, b),
    );
  };
  const [accuracy, scorers] = await Promise.all([
    runner.query<CountRow>(ACCURACY, [runId, baselineRunId]),
    scorerDifferences(),
  ]);
  return [
    ...countedByMetric(accuracy.rows, "accuracy"),
    ...countedByMetric(scorers.rows, "scorer"),
  ];
}

/** Rows in metric order, each metric's differences ascending, as the queries sort them. */
function countedByMetric(
  rows: readonly CountRow[],
  kind: PairedDifferences["kind"],
): PairedDifferences[] {
  const byMetric = new Map<
    string,
    { currentSum: number; baselineSum: number; differences: { value: number; count: number }[] }
  >();
  for (const row of rows) {
    let counted = byMetric.get(row.metric);
    if (counted === undefined) {
      counted = { currentSum: 0, baselineSum: 0, differences: [] };
      byMetric.set(row.metric, counted);
    }
    counted.currentSum += Number(row.a_sum);
    counted.baselineSum += Number(row.b_sum);
    counted.differences.push({ value: Number(row.difference), count: Number(row.tasks) });
  }
  return [...byMetric].map(([metric, counted]) => ({ metric, kind, counted }));
}
