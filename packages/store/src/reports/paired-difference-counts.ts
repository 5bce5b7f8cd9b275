import { type CountedDifferences, MOMENTS_FROM } from "@assay/core";
import type { RunTables } from "./run-tables.js";

/** One figure's per-task differences between two runs, over the tasks both runs have. */
export interface PairedDifferences {
  metric: string;
  kind: "accuracy" | "scorer";
  /** Counted in the database: a few rows per figure, never one per task. */
  counted: CountedDifferences;
}

/**
 * A row of the counting queries below: one difference of one figure, with how many paired
 * tasks have it and the two runs' sums over them. `metric_position` orders the figures
 * (pass@1, selected, oracle; 0 for every scorer, which sort by name).
 */
export interface CountRow {
  metric: string;
  metric_position?: unknown;
  difference: unknown;
  tasks: unknown;
  a_sum: unknown;
  b_sum: unknown;
  /** Σ difference² over the figure's tasks, on its one row where they were summed. */
  square_sum?: unknown;
}

/** Where a figure's differences are summed rather than counted (`MOMENTS_FROM`). */
export type SummedFrom = { readonly distinct: number; readonly tasks: number };

/**
 * A counting query's rows as a comparison reads them: each figure's distinct differences,
 * or, for a figure with more than `from.distinct` of them over more than `from.tasks`
 * tasks (a continuous score over many tasks), one row: the mean difference over all its
 * tasks, their count and sums, and the sum of squared differences (`square_sum`), from
 * which the interval is computed. Either way a few rows per figure reach the client.
 */
export const summedWhereManySql = (counts: string, from: SummedFrom = MOMENTS_FROM) => `
  WITH counts AS (${counts}),
  shape AS (
    SELECT metric, count(*) > ${Math.floor(from.distinct)}
                   AND sum(tasks) > ${Math.floor(from.tasks)} AS summed
    FROM counts GROUP BY metric
  )
  SELECT c.metric, c.metric_position, c.difference, c.tasks, c.a_sum, c.b_sum,
         NULL::float8 AS square_sum
  FROM counts c JOIN shape s USING (metric) WHERE NOT s.summed
  UNION ALL
  SELECT c.metric, min(c.metric_position),
         sum(coalesce(c.difference, 0) * c.tasks) / sum(c.tasks)::float8, sum(c.tasks),
         sum(c.a_sum), sum(c.b_sum),
         -- Postgres refuses a product that underflows to 0; such a square adds nothing.
         sum(c.tasks * CASE WHEN abs(c.difference) < 1e-150 THEN 0
                            ELSE c.difference * c.difference END)
  FROM counts c JOIN shape s USING (metric) WHERE s.summed
  GROUP BY c.metric
  ORDER BY metric_position, metric, difference`;

// Tasks counted in a run's accuracy (docs/architecture.md, "Selection"): correctness known
// for the first candidate, the pick (a task with nothing picked is unsolved) and the oracle.
// A run has one selection per task, keyed (run_id, task_id): the two runs' partitions are
// joined on that key, each read in key order (run_id is constant in it), so the join merges
// them or looks rows up by the key, never a nested loop over scans. Grouping both runs'
// rows on task_id instead made a hash table of every task that spilled to disk at 250,000
// tasks a run (3 s). The paired tasks are then counted by difference (three values for a
// 0/1 figure), so what reaches the client does not grow with the tasks. The run ids are
// $1 (the reported run, a) and $2 (the baseline, b) in every query here.
const accuracySide = (t: RunTables, run: string) => `
      SELECT task_id, first_correct::int AS pass1, any_correct::int AS oracle,
             (CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END)::int AS picked
      FROM ${t.selections}
      WHERE run_id = ${run} AND first_correct IS NOT NULL AND any_correct IS NOT NULL
        AND (selected_index IS NULL OR selected_correct IS NOT NULL)`;

// The paired tasks are first counted by their six 0/1 values (at most 64 groups), and only
// those counts are spread over the three figures: spreading every task over them made
// three rows per task to group (three quarters of a million at 250,000 tasks).
export const accuracyCountsSql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT x.pass1 AS a_pass1, x.picked AS a_selected, x.oracle AS a_oracle,
           y.pass1 AS b_pass1, y.picked AS b_selected, y.oracle AS b_oracle, count(*) AS n
    FROM (${accuracySide(a, "$1")}) x
    JOIN (${accuracySide(b, "$2")}) y ON y.task_id = x.task_id
    GROUP BY 1, 2, 3, 4, 5, 6
  )
  SELECT m.metric, m.position AS metric_position, m.a - m.b AS difference,
         sum(n)::bigint AS tasks, sum(m.a * n)::bigint AS a_sum, sum(m.b * n)::bigint AS b_sum
  FROM paired
  CROSS JOIN LATERAL (VALUES (1, 'pass@1', a_pass1, b_pass1),
                             (2, 'selected', a_selected, b_selected),
                             (3, 'oracle', a_oracle, b_oracle)) AS m(position, metric, a, b)
  GROUP BY m.position, m.metric, m.a - m.b
  ORDER BY m.position, difference`;

// A task's value for a scorer is the mean of its scored results (one per candidate);
// unscored results are left out, as in every mean the report shows. Paired by grouping
// both runs' rows on task_id (the means are derived rows, with no key to join on); each
// run's scores are joined to its samples on the partitions' primary key (run-tables.ts:
// only the two runs' partitions are read). Counted by difference, as above: a scorer of a
// few levels has a few dozen differences, a continuous one at most a row per distinct value.
const scoredValuesSql = (side: "a" | "b", t: RunTables) => `
      SELECT '${side}' AS side, s.scorer, sm.task_id, s.value
      FROM ${t.scores} s
      JOIN ${t.samples} sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
      WHERE s.status = 'scored'`;

export const rawScorerCountsSql = (a: RunTables, b: RunTables) => `
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
  SELECT scorer AS metric, 0 AS metric_position, a_value - b_value AS difference,
         count(*) AS tasks, sum(a_value) AS a_sum, sum(b_value) AS b_sum
  FROM paired
  GROUP BY scorer, a_value - b_value
  ORDER BY scorer, difference`;

// The same pairing from the runs' task score rollups (written at completion with the same
// avg over the same rows): a row per task and scorer, so a task's value is its one row and
// the two runs' rows are joined on their primary key. Both partitions are read in key order
// (run_id is constant in each), so the join merges them without a sort or a hash table
// that would outgrow work_mem; no score is joined to its sample at report time.
export const rolledUpScorerCountsSql = (a: RunTables, b: RunTables) => `
  WITH paired AS (
    SELECT x.scorer, x.value AS a_value, y.value AS b_value
    FROM ${a.task_score_rollups} x
    JOIN ${b.task_score_rollups} y ON y.task_id = x.task_id AND y.scorer = x.scorer
    WHERE x.run_id = $1 AND y.run_id = $2
  )
  SELECT scorer AS metric, 0 AS metric_position, a_value - b_value AS difference,
         count(*) AS tasks, sum(a_value) AS a_sum, sum(b_value) AS b_sum
  FROM paired
  GROUP BY scorer, a_value - b_value
  ORDER BY scorer, difference`;

/** Rows in metric order, each metric's differences ascending, as the queries sort them. */
export function countedByMetric(
  rows: readonly CountRow[],
  kind: PairedDifferences["kind"],
): PairedDifferences[] {
  const byMetric = new Map<
    string,
    {
      currentSum: number;
      baselineSum: number;
      differences: { value: number; count: number }[];
      squareSum?: number;
    }
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
    if (row.square_sum !== null && row.square_sum !== undefined) {
      counted.squareSum = Number(row.square_sum);
    }
  }
  return [...byMetric].map(([metric, counted]) => ({ metric, kind, counted }));
}
