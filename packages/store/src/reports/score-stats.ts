import {
  rateOf,
  type ScoreHistogram,
  type ScorerMean,
  type ScorerMoments,
  scorerMeanOf,
  type UnscoredReport,
} from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { bucketColumns } from "./bucket-columns.js";
import { groupByRun, num } from "./group-by-run.js";
import { PASS_THRESHOLD, type ScorerPassCounts } from "./pass-rule.js";

export const HISTOGRAM_BINS = 10;
/** Bin i covers [i/10, (i+1)/10); the last one also holds 1.0. */
const BIN_EDGES = Array.from({ length: HISTOGRAM_BINS }, (_, i) => i / HISTOGRAM_BINS);

// One scan of the run's scores gives both the unscored reasons (rows with a reason) and
// the histogram (bin columns; an unscored row has no value and lands in none), and the
// sums each scorer's mean and its interval are computed from. The sums are exact (numeric),
// so they do not depend on the order a plan reads the rows in: a rollup and a later raw
// read give the same figures. A square below 1e-300 adds nothing the interval could show,
// and Postgres refuses one that underflows a double. The same scan counts each scorer's
// passes under the run's stored pass rule (runs.pass_threshold, runs.pass_thresholds).
const SCORE_STATS = `
  SELECT s.run_id, s.scorer, s.reason, count(*) AS n,
         count(*) FILTER (WHERE value >= ${PASS_THRESHOLD}) AS passed,
         min(${PASS_THRESHOLD}) AS threshold,
         coalesce(sum(value::numeric), 0)::float8 AS total,
         coalesce(sum((CASE WHEN value < 1e-150 THEN 0 ELSE value * value END)::numeric), 0)::float8
           AS squares,
         count(*) FILTER (WHERE value > 0 AND value < 1) AS fractional,
         ${bucketColumns("value", BIN_EDGES, "*", "bin_")}
  FROM scores s JOIN runs r ON r.id = s.run_id WHERE s.run_id = ANY($1::text[])
  GROUP BY s.run_id, s.scorer, s.reason`;

type Row = Record<string, unknown> & { run_id: string; scorer: string; reason: string | null };

export interface ScoreStats {
  unscored: UnscoredReport;
  histograms: ScoreHistogram[];
  /** What each scorer's mean is computed from (a rollup stores these). */
  moments: ScorerMoments[];
  means: ScorerMean[];
  /** Each scorer's passes under the run's pass rule (a rollup stores these). */
  passes: ScorerPassCounts[];
}

export const NO_SCORES: ScoreStats = {
  unscored: { results: 0, unscored: rateOf(0, 0), byReason: [] },
  histograms: [],
  moments: [],
  means: [],
  passes: [],
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
  const moments = new Map<string, ScorerMoments>();
  const passes = new Map<string, ScorerPassCounts>();
  let results = 0;
  for (const row of rows) {
    const n = num(row.n);
    results += n;
    const pass = passes.get(row.scorer) ?? {
      scorer: row.scorer,
      threshold: num(row.threshold),
      scored: 0,
      unscored: 0,
      passed: 0,
    };
    passes.set(row.scorer, pass);
    if (row.reason !== null) pass.unscored += n;
    else pass.scored += n;
    pass.passed += num(row.passed);
    if (row.reason !== null) {
      reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + n);
      continue;
    }
    const histogram = histograms.get(row.scorer) ?? {
      scorer: row.scorer,
      counts: BIN_EDGES.map(() => 0),
      scored: 0,
    };
    histogram.counts = histogram.counts.map((count, i) => count + num(row[`bin_${i}`]));
    histogram.scored += n;
    histograms.set(row.scorer, histogram);
    const m = moments.get(row.scorer) ?? {
      scorer: row.scorer,
      scored: 0,
      sum: 0,
      sumOfSquares: 0,
      fractional: 0,
    };
    m.scored += n;
    m.sum += num(row.total);
    m.sumOfSquares += num(row.squares);
    m.fractional += num(row.fractional);
    moments.set(row.scorer, m);
  }
  return scoreStatsOf(
    results,
    [...reasons].map(([reason, count]) => ({ reason, count })),
    [...histograms.values()],
    [...moments.values()],
    [...passes.values()],
  );
}

/** The figures, sorted as every report shows them, from their parts in any order. */
export function scoreStatsOf(
  results: number,
  reasons: readonly { reason: string; count: number }[],
  histograms: readonly ScoreHistogram[],
  moments: readonly ScorerMoments[],
  passes: readonly ScorerPassCounts[],
): ScoreStats {
  const byReason = [...reasons].sort(
    (a, b) => b.count - a.count || a.reason.localeCompare(b.reason),
  );
  const unscoredCount = byReason.reduce((sum, r) => sum + r.count, 0);
  return {
    unscored: { results, unscored: rateOf(unscoredCount, results), byReason },
    histograms: [...histograms].sort((a, b) => a.scorer.localeCompare(b.scorer)),
    moments: [...moments].sort((a, b) => a.scorer.localeCompare(b.scorer)),
    means: moments
      .filter((m) => m.scored > 0)
      .map(scorerMeanOf)
      .sort((a, b) => a.scorer.localeCompare(b.scorer)),
    passes: [...passes].sort((a, b) => a.scorer.localeCompare(b.scorer)),
  };
}
