import { rateOf, type TruncationReport } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { groupByRun, num } from "./group-by-run.js";

/** Inputs under 2^SMALLEST_BUCKET tokens share the first bucket. */
const SMALLEST_BUCKET = 9;

// A unit is one verifier usage row (a sample × verifier scorer, all its C×K prompts). Its
// input length before fitting is what was sent plus what fitting dropped; buckets double
// ([512, 1024), [1024, 2048), …). Float ln, not log(2, numeric): numeric log costs ~10 µs a row.
const TRUNCATION_STATS = `
  SELECT u.run_id,
         greatest(${SMALLEST_BUCKET - 1}, floor(ln(greatest(1, u.input_tokens + coalesce(t.dropped, 0))::float8) / ln(2.0::float8))::int) AS bucket,
         count(*) AS units,
         count(t.dropped) AS truncated
  FROM usage u
  LEFT JOIN (
    SELECT run_id, sample_id, scorer, sum(dropped_tokens) AS dropped
    FROM truncations WHERE run_id = ANY($1::text[]) GROUP BY run_id, sample_id, scorer
  ) t ON t.run_id = u.run_id AND t.sample_id = u.sample_id AND t.scorer = u.scorer
  WHERE u.run_id = ANY($1::text[]) AND u.role = 'verifier'
  GROUP BY u.run_id, bucket ORDER BY u.run_id, bucket`;

interface Row {
  run_id: string;
  bucket: number;
  units: unknown;
  truncated: unknown;
}

export const NO_TRUNCATION_DATA: TruncationReport = { overall: rateOf(0, 0), byInputLength: [] };

export async function truncationStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, TruncationReport>> {
  const { rows } = await runner.query<Row>(TRUNCATION_STATS, [runIds]);
  const byRun = new Map<string, TruncationReport>();
  for (const [runId, group] of groupByRun(rows)) {
    const byInputLength = group.map((r) => ({
      fromTokens: r.bucket < SMALLEST_BUCKET ? 0 : 2 ** r.bucket,
      toTokens: 2 ** (r.bucket + 1),
      truncation: rateOf(num(r.truncated), num(r.units)),
    }));
    const units = byInputLength.reduce((sum, b) => sum + b.truncation.of, 0);
    const truncated = byInputLength.reduce((sum, b) => sum + b.truncation.count, 0);
    byRun.set(runId, { overall: rateOf(truncated, units), byInputLength });
  }
  return byRun;
}
