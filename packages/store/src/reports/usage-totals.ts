import type { UsageRole, UsageTotals } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { groupByRun, num, numOrNull } from "./group-by-run.js";

// Sums only; prices are applied in TypeScript (costOfUsage) so the price table stays a file.
// Compute time is summed as numeric: a float sum depends on the order rows arrive in, which
// changes with the plan, and a run's cost must not change between two reads of it.
const USAGE_TOTALS = `
  SELECT run_id, role, model,
         sum(input_tokens) AS input_tokens, sum(cached_input_tokens) AS cached_input_tokens,
         sum(cache_write_tokens) AS cache_write_tokens,
         sum(cache_write_1h_tokens) AS cache_write_1h_tokens,
         sum(output_tokens) AS output_tokens, sum(compute_ms::numeric)::float8 AS compute_ms,
         count(*) AS rows
  FROM usage WHERE run_id = ANY($1::text[]) GROUP BY run_id, role, model ORDER BY run_id, role, model`;

export interface UsageRow {
  run_id: string;
  role: UsageRole;
  model: string;
  input_tokens: unknown;
  cached_input_tokens: unknown;
  cache_write_tokens: unknown;
  cache_write_1h_tokens: unknown;
  output_tokens: unknown;
  compute_ms: unknown;
  rows: unknown;
  /** From a rollup: the generator model's solved tasks, null before they were counted. */
  solved?: unknown;
}

export async function usageTotals(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, UsageTotals[]>> {
  const { rows } = await runner.query<UsageRow>(USAGE_TOTALS, [runIds]);
  const byRun = new Map<string, UsageTotals[]>();
  for (const [runId, group] of groupByRun(rows)) byRun.set(runId, group.map(usageTotalsOf));
  return byRun;
}

/** One (role, model) row of sums, from the query or a rollup (same column names). */
export function usageTotalsOf(r: Omit<UsageRow, "run_id">): UsageTotals {
  return {
    role: r.role,
    model: r.model,
    inputTokens: num(r.input_tokens),
    cachedInputTokens: num(r.cached_input_tokens),
    cacheWriteTokens: num(r.cache_write_tokens),
    cacheWrite1hTokens: num(r.cache_write_1h_tokens),
    outputTokens: num(r.output_tokens),
    computeMs: numOrNull(r.compute_ms),
    rows: num(r.rows),
    // Only a rollup carries it; the raw figures add it (run-figures.ts).
    ...(r.role === "generator" && "solved" in r && { solved: numOrNull(r.solved) }),
  };
}
