import { rateOf, type TruncationReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { bucketColumns } from "./bucket-columns.js";
import { groupByRun, num } from "./group-by-run.js";

/** Lower edges of the input-length buckets (prompt tokens before fitting); the last is open. */
export const INPUT_LENGTH_EDGES = [
  0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
] as const;

// The unit is one verifier model call: the pipeline logs a truncations row for every call,
// cut or not (dropped_tokens 0), so one scan of that table by run_id (its primary key's
// leading column) gives calls, cut calls and refused calls per prompt length, without
// joining usage. A refused call keeps nothing (kept_tokens 0); a cut one kept some.
export const CUT = "CASE WHEN dropped_tokens > 0 AND kept_tokens > 0 THEN 1 END";
export const REFUSED = "CASE WHEN kept_tokens = 0 THEN 1 END";

const TRUNCATION_STATS = `
  SELECT run_id,
         ${bucketColumns("original_tokens", INPUT_LENGTH_EDGES, "*", "calls_")},
         ${bucketColumns("original_tokens", INPUT_LENGTH_EDGES, CUT, "cut_")},
         ${bucketColumns("original_tokens", INPUT_LENGTH_EDGES, REFUSED, "refused_")}
  FROM truncations WHERE run_id = ANY($1::text[])
  GROUP BY run_id`;

type Row = Record<string, unknown> & { run_id: string };

export const NO_TRUNCATION_DATA: TruncationReport = {
  overall: rateOf(0, 0),
  refused: rateOf(0, 0),
  byInputLength: [],
};

export async function truncationStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, TruncationReport>> {
  const { rows } = await runner.query<Row>(TRUNCATION_STATS, [runIds]);
  const byRun = new Map<string, TruncationReport>();
  for (const [runId, [row]] of groupByRun(rows)) {
    if (row === undefined) continue;
    byRun.set(
      runId,
      truncationReportOf(
        INPUT_LENGTH_EDGES.map((_, i) => num(row[`calls_${i}`])),
        INPUT_LENGTH_EDGES.map((_, i) => num(row[`cut_${i}`])),
        INPUT_LENGTH_EDGES.map((_, i) => num(row[`refused_${i}`])),
      ),
    );
  }
  return byRun;
}

/**
 * The report from calls, cut calls and refused calls per input-length bucket
 * (INPUT_LENGTH_EDGES order).
 */
export function truncationReportOf(
  calls: readonly number[],
  cut: readonly number[],
  refused: readonly number[],
): TruncationReport {
  const byInputLength = INPUT_LENGTH_EDGES.map((fromTokens, i) => ({
    fromTokens,
    toTokens: INPUT_LENGTH_EDGES[i + 1] ?? null,
    truncation: rateOf(cut[i] ?? 0, calls[i] ?? 0),
    refused: refused[i] ?? 0,
  })).filter((bucket) => bucket.truncation.of > 0);
  const totalCalls = byInputLength.reduce((sum, b) => sum + b.truncation.of, 0);
  const totalCut = byInputLength.reduce((sum, b) => sum + b.truncation.count, 0);
  const totalRefused = byInputLength.reduce((sum, b) => sum + b.refused, 0);
  return {
    overall: rateOf(totalCut, totalCalls),
    refused: rateOf(totalRefused, totalCalls),
    byInputLength,
  };
}

/** Calls, cut and refused calls per bucket, every bucket listed: what a rollup stores. */
export function truncationBuckets(report: TruncationReport): {
  calls: number[];
  cut: number[];
  refused: number[];
} {
  const bucketAt = (from: number) => report.byInputLength.find((b) => b.fromTokens === from);
  return {
    calls: INPUT_LENGTH_EDGES.map((from) => bucketAt(from)?.truncation.of ?? 0),
    cut: INPUT_LENGTH_EDGES.map((from) => bucketAt(from)?.truncation.count ?? 0),
    refused: INPUT_LENGTH_EDGES.map((from) => bucketAt(from)?.refused ?? 0),
  };
}
