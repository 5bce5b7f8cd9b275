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
// A run has one selection per task, keyed (run_id, task_id): the two runs' partitions are
// joined on that key, each read in key order (run_id is constant in it), so the join merges
// them or looks rows up by the key, never a nested loop over scans. Grouping both runs'
// rows on task_id instead made a hash table of every task that spilled to disk at 250,000
// tasks a run (3 s). The paired tasks are then counted by difference (three values for a
// 0/1 figure), so what reaches the client does not grow with the tasks.
const accuracySide = (t: RunTables, run: string) => `
      SELECT task_id, first_correct::int AS pass1, any_correct::int AS oracle,
             (CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END)::int AS picked
      FROM ${t.selections}
      WHERE run_id = ${run} AND first_correct IS NOT NULL AND any_correct IS NOT NULL
        AND (selected_index IS NULL OR selected_correct IS NOT NULL)`;

const accuracySql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT x.pass1 AS a_pass1, x.picked AS a_selected, x.oracle AS a_oracle,
           y.pass1 AS b_pass1, y.picked AS b_selected, y.oracle AS b_oracle
    FROM (${accuracySide(a, "$1")}) x
    JOIN (${accuracySide(b, "$2")}) y ON y.task_id = x.task_id
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
// unscored results are left out, as in every mean the report shows. Paired by grouping
// both runs' rows on task_id (the means are derived rows, with no key to join on); each run's scores are joined to its samples on the partitions' primary key
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
// avg over the same rows): a row per task and scorer, so a task's value is its one row and
// the two runs' rows are joined on their primary key. Both partitions are read in key order
// (run_id is constant in each), so the join merges them without a sort or a hash table
// that would outgrow work_mem; no score is joined to its sample at report time.
const rolledUpDifferencesSql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT x.scorer, x.value AS a_value, y.value AS b_value
    FROM ${a.task_score_rollups} x
    JOIN ${b.task_score_rollups} y ON y.task_id = x.task_id AND y.scorer = x.scorer
    WHERE x.run_id = $1 AND y.run_id = $2
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
  const ids = [runId, baselineRunId];
  const [tables, rolled] = await Promise.all([
    runTablesOf(runner, ids),
    from === "raw rows" ? undefined : runner.query<{ run_id: string }>(TASKS_ROLLED_UP, [ids]),
  ]);
  const [a, b] = [tables.of(runId), tables.of(baselineRunId)];
  const rolledUp = new Set(rolled?.rows.map((r) => r.run_id));
  const fromRollups =
    from === "task rollups" || (rolledUp.has(runId) && rolledUp.has(baselineRunId));
  const [accuracyRows, scorers] = await Promise.all([
    runner.query<CountRow>(accuracySql(a, b), ids),
    fromRollups
      ? runner.query<CountRow>(rolledUpDifferencesSql(a, b), ids)
      : runner.query<CountRow>(scorerDifferencesSql(a, b)),
  ]);
  return [
    ...countedByMetric(accuracyRows.rows, "accuracy"),
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
