import { calibrationSummary, type LabelledScore, type ScorerCalibration } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

// Verifier results carry `detail.head` (probe or distribution); deterministic scorers do
// not. Only scored results on labelled answers count. Equal (value, label) pairs are
// grouped in SQL, so a run of many answers sends back one row per distinct score. Ordered
// so that the summary's floating-point sums come out the same on every call (a rollup
// written at completion equals the figure computed again from raw rows).
const CALIBRATION_POINTS = `
  SELECT s.run_id, s.scorer, s.criterion, s.value, sa.label, count(*) AS n
  FROM scores s
  JOIN samples sa ON sa.run_id = s.run_id AND sa.sample_id = s.sample_id
  WHERE s.run_id = ANY($1::text[]) AND s.status = 'scored' AND sa.label IS NOT NULL
    AND s.detail ? 'head'
  GROUP BY s.run_id, s.scorer, s.criterion, s.value, sa.label
  ORDER BY s.run_id, s.scorer, s.criterion, s.value, sa.label`;

type Row = {
  run_id: string;
  scorer: string;
  criterion: string;
  value: unknown;
  label: boolean;
  n: unknown;
};

/** Per run, each verifier scorer's calibration against the answers' labels. */
export async function calibrationStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, ScorerCalibration[]>> {
  const { rows } = await runner.query<Row>(CALIBRATION_POINTS, [runIds]);
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
    runIds.map((runId) => [
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
