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
    const byInputLength = INPUT_LENGTH_EDGES.map((fromTokens, i) => ({
      fromTokens,
      toTokens: INPUT_LENGTH_EDGES[i + 1] ?? null,
      truncation: rateOf(num(row[`cut_${i}`]), num(row[`calls_${i}`])),
    })).filter((bucket) => bucket.truncation.of > 0);
    const calls = byInputLength.reduce((sum, b) => sum + b.truncation.of, 0);
    const cut = byInputLength.reduce((sum, b) => sum + b.truncation.count, 0);
    byRun.set(runId, { overall: rateOf(cut, calls), byInputLength });
  }
  return byRun;
}
