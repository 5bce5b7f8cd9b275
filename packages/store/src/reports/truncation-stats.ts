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
// leading column) gives calls and cut calls per prompt length, without joining usage.
const TRUNCATION_STATS = `
  SELECT run_id,
         ${bucketColumns("original_tokens", INPUT_LENGTH_EDGES, "*", "calls_")},
         ${bucketColumns("original_tokens", INPUT_LENGTH_EDGES, "CASE WHEN dropped_tokens > 0 THEN 1 END", "cut_")}
  FROM truncations WHERE run_id = ANY($1::text[])
  GROUP BY run_id`;

type Row = Record<string, unknown> & { run_id: string };

export const NO_TRUNCATION_DATA: TruncationReport = { overall: rateOf(0, 0), byInputLength: [] };

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
      ),
    );
  }
  return byRun;
}

/** The report from calls and cut calls per input-length bucket (INPUT_LENGTH_EDGES order). */
export function truncationReportOf(
  calls: readonly number[],
  cut: readonly number[],
): TruncationReport {
  const byInputLength = INPUT_LENGTH_EDGES.map((fromTokens, i) => ({
    fromTokens,
    toTokens: INPUT_LENGTH_EDGES[i + 1] ?? null,
    truncation: rateOf(cut[i] ?? 0, calls[i] ?? 0),
  })).filter((bucket) => bucket.truncation.of > 0);
  const totalCalls = byInputLength.reduce((sum, b) => sum + b.truncation.of, 0);
  const totalCut = byInputLength.reduce((sum, b) => sum + b.truncation.count, 0);
  return { overall: rateOf(totalCut, totalCalls), byInputLength };
}

/** Calls and cut calls per bucket, every bucket listed: what a rollup stores. */
export function truncationBuckets(report: TruncationReport): { calls: number[]; cut: number[] } {
  const bucketAt = (from: number) => report.byInputLength.find((b) => b.fromTokens === from);
  return {
    calls: INPUT_LENGTH_EDGES.map((from) => bucketAt(from)?.truncation.of ?? 0),
    cut: INPUT_LENGTH_EDGES.map((from) => bucketAt(from)?.truncation.count ?? 0),
  };
}
