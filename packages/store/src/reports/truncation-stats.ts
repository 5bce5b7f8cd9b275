import { rateOf, type TruncationReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { bucketColumns } from "./bucket-columns.js";
import { groupByRun, num } from "./group-by-run.js";

/** Lower edges of the input-length buckets (tokens before fitting); the last is open. */
export const INPUT_LENGTH_EDGES = [
  0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
] as const;

const LENGTH = "u.input_tokens + coalesce(t.dropped, 0)";

// A unit is one verifier usage row (a sample × verifier scorer, all its C×K prompts). Its
// input length before fitting is what was sent plus what fitting dropped. Both sides are
// read by run_id, the leading column of their primary keys.
const TRUNCATION_STATS = `
  SELECT u.run_id,
         ${bucketColumns(LENGTH, INPUT_LENGTH_EDGES, "*", "units_")},
         ${bucketColumns(LENGTH, INPUT_LENGTH_EDGES, "t.dropped", "cut_")}
  FROM usage u
  LEFT JOIN (
    SELECT run_id, sample_id, scorer, sum(dropped_tokens) AS dropped
    FROM truncations WHERE run_id = ANY($1::text[]) GROUP BY run_id, sample_id, scorer
  ) t ON t.run_id = u.run_id AND t.sample_id = u.sample_id AND t.scorer = u.scorer
  WHERE u.run_id = ANY($1::text[]) AND u.role = 'verifier'
  GROUP BY u.run_id`;

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
      truncation: rateOf(num(row[`cut_${i}`]), num(row[`units_${i}`])),
    })).filter((bucket) => bucket.truncation.of > 0);
    const units = byInputLength.reduce((sum, b) => sum + b.truncation.of, 0);
    const truncated = byInputLength.reduce((sum, b) => sum + b.truncation.count, 0);
    byRun.set(runId, { overall: rateOf(truncated, units), byInputLength });
  }
  return byRun;
}
