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

// Tasks counted in a run's accuracy (docs/architecture.md, "Selection"), each with its
// pass@1, selected and oracle as the bits of one number (`assay_accuracy_bits`, migration
// 0025, which the task rollup chunks are written with too; null for a task not counted). A
// run has one selection per task, keyed (run_id, task_id): the two runs' partitions are
// joined on that key, each read in key order (run_id is constant in it), so the join merges
// them or looks rows up by the key, never a nested loop over scans. The run ids are $1 (the
// reported run, a) and $2 (the baseline, b) in every query here.
const accuracySide = (t: RunTables, run: string) => `
      SELECT task_id, bits FROM (
        SELECT task_id,
               assay_accuracy_bits(first_correct, selected_index, selected_correct, any_correct)
                 AS bits
        FROM ${t.selections} WHERE run_id = ${run}
      ) s
      WHERE bits IS NOT NULL`;

// The paired tasks counted by their two runs' bits (at most 64 groups), and only those
// counts spread over the three figures: spreading every task over them made three rows per
// task to group (three quarters of a million at 250,000 tasks). So what reaches the client
// does not grow with the tasks.
const accuracyFromBits = (pairedBits: string) => `
  WITH paired AS (
    SELECT a_bits, b_bits, count(*) AS n FROM (${pairedBits}) p GROUP BY a_bits, b_bits
  )
  SELECT m.metric, m.position AS metric_position, m.a - m.b AS difference,
         sum(n)::bigint AS tasks, sum(m.a * n)::bigint AS a_sum, sum(m.b * n)::bigint AS b_sum
  FROM paired
  CROSS JOIN LATERAL (VALUES (1, 'pass@1', a_bits & 1, b_bits & 1),
                             (2, 'selected', (a_bits >> 1) & 1, (b_bits >> 1) & 1),
                             (3, 'oracle', (a_bits >> 2) & 1, (b_bits >> 2) & 1))
    AS m(position, metric, a, b)
  GROUP BY m.position, m.metric, m.a - m.b
  ORDER BY m.position, difference`;

/** pass@1, selected and oracle differences, paired on the two runs' selections. */
export const accuracyCountsSql = (a: RunTables, b: RunTables) =>
  accuracyFromBits(`
    SELECT x.bits AS a_bits, y.bits AS b_bits
    FROM (${accuracySide(a, "$1")}) x
    JOIN (${accuracySide(b, "$2")}) y ON y.task_id = x.task_id`);

// Two rolled-up runs' chunks of one kind, slot by slot: a row per task both runs have the
// figure for. A task has the same slot in every run (task_keys), so the pairing is a join
// of a few thousand chunk rows on (figure, chunk) and an unnest of both arrays side by side,
// with no join, sort or hash table over the tasks themselves (at 2.5M tasks a run, 10 s
// paired from rows per task, 1.1 s from chunks: docs/performance.md).
const pairedChunks = (a: RunTables, b: RunTables, kind: "accuracy" | "scorer") => `
    SELECT x.figure, x.chunk, x.slots AS a_slots, y.slots AS b_slots
    FROM ${a.task_rollup_chunks} x
    JOIN ${b.task_rollup_chunks} y ON y.kind = x.kind AND y.figure = x.figure AND y.chunk = x.chunk
    WHERE x.run_id = $1 AND y.run_id = $2 AND x.kind = '${kind}'`;

// The paired chunks' slots side by side, a row (figure, a, b) per task both runs have the
// figure for. Unnested in the select list, where several set-returning functions step
// together: in FROM (unnest(a, b)) each chunk's rows went through a tuplestore first,
// half again as slow (85 against 127 ms for 500,000 pairs).
const slotPairs = (chunks: string, where = "true") => `
    SELECT figure, a, b FROM (
      SELECT c.figure, unnest(c.a_slots) AS a, unnest(c.b_slots) AS b
      FROM ${chunks} c WHERE ${where}
    ) s
    WHERE a IS NOT NULL AND b IS NOT NULL`;

/** The same counts as `accuracyCountsSql`, from the two runs' task rollup chunks. */
export const rolledUpAccuracyCountsSql = (a: RunTables, b: RunTables) =>
  accuracyFromBits(`
    SELECT a::int AS a_bits, b::int AS b_bits
    FROM (${slotPairs(`(${pairedChunks(a, b, "accuracy")})`)}) p`);

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

/** Chunks whose distinct differences are looked at before a scorer's tasks are grouped. */
const LOOKED_AT_FIRST = 16;

/**
 * Each scorer's counted (or summed) differences from the two runs' task rollup chunks, as
 * `summedWhereManySql(rawScorerCountsSql(...))` gives them from raw rows. A continuous
 * scorer has as many distinct differences as tasks: grouping millions of them only to find
 * that they are many, and sum them, was half of a comparison's time. So each scorer's
 * first paired chunks are looked at first: more than `from.distinct` distinct differences
 * there means more in all (a part never has more than the whole), and such a scorer over
 * more than `from.tasks` tasks is summed in one pass. Every other scorer is counted by
 * difference and then summed or not exactly as from raw rows, so where the first chunks
 * say too little the figures are the same, only slower to get.
 */
export const rolledUpScorerCountsSql = (
  a: RunTables,
  b: RunTables,
  from: SummedFrom = MOMENTS_FROM,
) => `
  WITH chunks AS MATERIALIZED (
    SELECT c.*, row_number() OVER (PARTITION BY c.figure ORDER BY c.chunk) AS nth
    FROM (${pairedChunks(a, b, "scorer")}) c
  ),
  many AS (
    SELECT figure FROM (${slotPairs("chunks", `c.nth <= ${LOOKED_AT_FIRST}`)}) p
    GROUP BY figure
    HAVING count(DISTINCT a - b) > ${Math.floor(from.distinct)}
  ),
  summed AS MATERIALIZED (
    SELECT figure, count(*) AS tasks, sum(a) AS a_sum, sum(b) AS b_sum,
           sum(a - b) AS difference_sum,
           -- Postgres refuses a product that underflows to 0; such a square adds nothing.
           sum(CASE WHEN abs(a - b) < 1e-150 THEN 0 ELSE (a - b) * (a - b) END) AS square_sum
    FROM (${slotPairs("chunks", "c.figure IN (SELECT figure FROM many)")}) p
    GROUP BY figure
    HAVING count(*) > ${Math.floor(from.tasks)}
  )
  SELECT figure AS metric, 0 AS metric_position, difference_sum / tasks AS difference, tasks,
         a_sum, b_sum, square_sum
  FROM summed
  UNION ALL
  SELECT * FROM (${summedWhereManySql(
    `SELECT figure AS metric, 0 AS metric_position, a - b AS difference,
            count(*) AS tasks, sum(a) AS a_sum, sum(b) AS b_sum
     FROM (${slotPairs("chunks", "c.figure NOT IN (SELECT figure FROM summed)")}) p
     GROUP BY figure, a - b`,
    from,
  )}) counted
  ORDER BY metric_position, metric, difference`;

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
