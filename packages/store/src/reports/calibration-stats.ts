import { calibrationSummary, type LabelledScore, type ScorerCalibration } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";
import { queryEachRun, type RunTableSet, type RunTables } from "./run-tables.js";

// Verifier results carry `detail.head` (probe or distribution); deterministic scorers do
// not. Only scored results on labelled answers count. Each result gives one point for its
// stored value (criterion ''), and, when its detail holds C > 1 criteria, one point per
// criterion: the criterion's value as the verifier computes it (the plain mean of its K
// variant values, in variant order) and as the selection ablation's criterion view reads
// it. A criterion with an unscored variant, or whose mean leaves [0, 1] (what the verifier
// stores as unscored), gives no point. Equal (value, label) pairs are grouped in SQL, so a
// run of many answers sends back one row per distinct score. Ordered so that the summary's
// floating-point sums come out the same on every call (a rollup written at completion
// equals the figure computed again from raw rows).
// One branch per run, on its own partitions (run-tables.ts).
const calibrationPointsSql = (t: RunTables, runId: string) => `
  WITH labelled AS (
    SELECT ${runId} AS run_id, s.scorer, s.value, sa.label,
           CASE WHEN jsonb_typeof(s.detail -> 'criteria') = 'array'
                THEN s.detail -> 'criteria' ELSE '[]'::jsonb END AS criteria
    FROM ${t.scores} s
    JOIN ${t.samples} sa ON sa.run_id = s.run_id AND sa.sample_id = s.sample_id
    WHERE s.status = 'scored' AND sa.label IS NOT NULL AND s.detail ? 'head'
  ),
  by_criterion AS (
    SELECT l.run_id, l.scorer, c.e ->> 'name' AS criterion, v.value, l.label
    FROM labelled l
    CROSS JOIN LATERAL jsonb_array_elements(l.criteria) AS c(e)
    CROSS JOIN LATERAL (
      SELECT CASE WHEN count(*) > 0 AND bool_and(jsonb_typeof(x.variant -> 'value') = 'number')
                  THEN avg(CASE WHEN jsonb_typeof(x.variant -> 'value') = 'number'
                                THEN (x.variant ->> 'value')::float8 END ORDER BY x.n)
             END AS value
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.e -> 'variants') = 'array'
                                     THEN c.e -> 'variants' ELSE '[]'::jsonb END)
           WITH ORDINALITY AS x(variant, n)
    ) v
    WHERE jsonb_array_length(l.criteria) > 1
      AND jsonb_typeof(c.e -> 'name') = 'string' AND c.e ->> 'name' <> ''
      AND v.value BETWEEN 0 AND 1
  ),
  points AS (
    SELECT run_id, scorer, '' AS criterion, value, label FROM labelled
    UNION ALL
    SELECT run_id, scorer, criterion, value, label FROM by_criterion
  )
  SELECT run_id, scorer, criterion, value, label, count(*) AS n
  FROM points
  GROUP BY run_id, scorer, criterion, value, label`;

type Row = {
  run_id: string;
  scorer: string;
  criterion: string;
  value: unknown;
  label: boolean;
  n: unknown;
};

/**
 * Per run, each verifier scorer's calibration against the answers' labels: one entry for
 * its stored value, then one per criterion when it scored more than one.
 */
export async function calibrationStats(
  runner: SqlRunner,
  tables: RunTableSet,
): Promise<Map<string, ScorerCalibration[]>> {
  const rows = await queryEachRun<Row>(
    runner,
    tables,
    calibrationPointsSql,
    "run_id, scorer, criterion, value, label",
  );
  const points = new Map<string, Map<string, LabelledScore[]>>();
  for (const row of rows) {
    const byScorer = points.get(row.run_id) ?? new Map<string, LabelledScore[]>();
    const key = JSON.stringify([row.scorer, row.criterion]);
    const list = byScorer.get(key) ?? [];
    const point = { score: num(row.value), label: row.label === true };
    for (let i = num(row.n); i > 0; i--) list.push(point);
    byScorer.set(key, list);
    points.set(row.run_id, byScorer);
  }
  return new Map(
    tables.runIds.map((runId) => [
      runId,
      [...(points.get(runId) ?? new Map<string, LabelledScore[]>())]
        .map(([key, list]) => {
          const [scorer, criterion] = JSON.parse(key) as [string, string];
          return { scorer, criterion, summary: calibrationSummary(list) };
        })
        .sort((a, b) => a.scorer.localeCompare(b.scorer) || a.criterion.localeCompare(b.criterion)),
    ]),
  );
}
