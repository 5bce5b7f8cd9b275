import { rateOf, type ScoreHistogram, type UnscoredReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { groupByRun, num } from "./group-by-run.js";

export const HISTOGRAM_BINS = 10;

// One scan of the run's scores gives both the unscored reasons and the histogram:
// a scored row lands in (scorer, bin), an unscored one in (reason).
const SCORE_STATS = `
  SELECT run_id, scorer, reason,
         CASE WHEN status = 'scored' THEN least(floor(value * ${HISTOGRAM_BINS}), ${HISTOGRAM_BINS - 1})::int END AS bin,
         count(*) AS n
  FROM scores WHERE run_id = ANY($1::text[])
  GROUP BY run_id, scorer, reason, bin`;

interface Row {
  run_id: string;
  scorer: string;
  reason: string | null;
  bin: number | null;
  n: unknown;
}

export interface ScoreStats {
  unscored: UnscoredReport;
  histograms: ScoreHistogram[];
}

export const NO_SCORES: ScoreStats = {
  unscored: { results: 0, unscored: rateOf(0, 0), byReason: [] },
  histograms: [],
};

export async function scoreStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, ScoreStats>> {
  const { rows } = await runner.query<Row>(SCORE_STATS, [runIds]);
  return new Map([...groupByRun(rows)].map(([runId, group]) => [runId, statsOf(group)]));
}

function statsOf(rows: readonly Row[]): ScoreStats {
  const reasons = new Map<string, number>();
  const histograms = new Map<string, ScoreHistogram>();
  let results = 0;
  for (const row of rows) {
    const n = num(row.n);
    results += n;
    if (row.bin === null) {
      const reason = row.reason ?? "unknown";
      reasons.set(reason, (reasons.get(reason) ?? 0) + n);
      continue;
    }
    const histogram = histograms.get(row.scorer) ?? {
      scorer: row.scorer,
      counts: new Array<number>(HISTOGRAM_BINS).fill(0),
      scored: 0,
    };
    histogram.counts[row.bin] = (histogram.counts[row.bin] ?? 0) + n;
    histogram.scored += n;
    histograms.set(row.scorer, histogram);
  }
  const byReason = [...reasons]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const unscoredCount = byReason.reduce((sum, r) => sum + r.count, 0);
  return {
    unscored: { results, unscored: rateOf(unscoredCount, results), byReason },
    histograms: [...histograms.values()].sort((a, b) => a.scorer.localeCompare(b.scorer)),
  };
}
