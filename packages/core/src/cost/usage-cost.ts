import { type ModelPricing, priceBasisOf } from "./price-basis.js";
import type { ModelPrice, PriceTable } from "./price-table.js";

export type UsageRole = "generator" | "verifier";

/** Usage summed over the rows of one role and model (what the report query returns). */
export interface UsageTotals {
  role: UsageRole;
  model: string;
  /** Uncached input tokens (cached ones are counted apart, never twice). */
  inputTokens: number;
  cachedInputTokens: number;
  /** Input tokens written to a prompt cache (counted apart from both of the above). */
  cacheWriteTokens: number;
  /**
   * The part of `cacheWriteTokens` written to a 1-hour cache (the rest: 5-minute writes).
   * Absent: none.
   */
  cacheWrite1hTokens?: number;
  outputTokens: number;
  /** Summed compute time; null when no row measured it. */
  computeMs: number | null;
  rows: number;
  /**
   * A generator model's solved tasks: those whose deciding candidate (the selected one, else
   * the first) this model generated. Null: not known (rolled up before it was counted).
   * Absent on a verifier's row.
   */
  solved?: number | null;
}

export interface UsageCost {
  /** Null when some usage could not be priced: a wrong 0 would flatter the run. */
  generation: number | null;
  verification: number | null;
  total: number | null;
  currency: string;
  /** Why an amount is null, one line per cause, for the report and the log. */
  warnings: string[];
  /**
   * What each (role, model) was priced on: tokens (reproducible) or measured GPU time
   * (varies with load). Absent from reports built before it was recorded.
   */
  pricing?: ModelPricing[];
  /**
   * Each (role, model)'s tokens and cost, in the order of the usage rows (role, then
   * model): the generator models of the answers and the verifier model. Absent from
   * reports built before it was recorded.
   */
  byModel?: ModelCost[];
}

/** One (role, model)'s usage and what it cost; `cost` is null when it could not be priced. */
export interface ModelCost extends UsageTotals {
  cost: number | null;
}

const MILLION = 1_000_000;
const MS_PER_HOUR = 3_600_000;

export interface CostOptions {
  /**
   * Roles known to have done no work for these rows (a slice none of whose samples a
   * verifier scored): with no usage they cost 0 instead of unknown.
   */
  idle?: readonly UsageRole[];
}

/**
 * Prices usage rows, any role by either kind of price: a verifier priced per million tokens
 * costs the same on every rerun, one priced per GPU-hour varies with the measured time. A
 * role with no usage at all (unless it was idle), an unknown model or a GPU-hour price
 * without measured compute leaves that role's cost null with a warning, never 0.
 */
export function costOfUsage(
  totals: readonly UsageTotals[],
  table: PriceTable,
  options: CostOptions = {},
): UsageCost {
  const warnings: string[] = [];
  // Each row's cost, kept for the breakdown by model: the roles sum the same numbers.
  const rowCosts = new Map<UsageTotals, number | null>();
  const roleCost = (role: UsageRole): number | null => {
    const rows = totals.filter((t) => t.role === role);
    if (rows.length === 0 && options.idle?.includes(role) === true) return 0;
    if (rows.length === 0) {
      warnings.push(`no ${role} usage recorded: ${role} cost unknown`);
      return null;
    }
    let sum: number | null = 0;
    for (const row of rows) {
      const cost = costOfRow(row, priceOf(table, row.model), warnings);
      rowCosts.set(row, cost);
      sum = sum === null || cost === null ? null : sum + cost;
    }
    return sum;
  };
  const generation = roleCost("generator");
  const verification = roleCost("verifier");
  const total = generation === null || verification === null ? null : generation + verification;
  const byModel = totals.map((row) => ({ ...row, cost: rowCosts.get(row) ?? null }));
  const pricing = totals.map((t) => ({
    role: t.role,
    model: t.model,
    basis: priceBasisOf(priceOf(table, t.model)),
  }));
  return { generation, verification, total, currency: table.currency, warnings, pricing, byModel };
}

/** A model's own entry: a model named `constructor` must not find Object's constructor. */
function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  return Object.hasOwn(table.models, model) ? table.models[model] : undefined;
}

function costOfRow(
  row: UsageTotals,
  price: ModelPrice | undefined,
  warnings: string[],
): number | null {
  if (price === undefined) {
    warnings.push(
      `model \`${row.model}\` (${row.role}) is not in the price table: its cost is unknown`,
    );
    return null;
  }
  const tokenCost =
    (row.inputTokens * (price.input_per_million ?? 0) +
      row.cachedInputTokens * (price.cached_input_per_million ?? price.input_per_million ?? 0) +
      cacheWriteCost(row, price) +
      row.outputTokens * (price.output_per_million ?? 0)) /
    MILLION;
  if (price.gpu_hour === undefined) return tokenCost;
  if (row.computeMs === null) {
    warnings.push(
      `model \`${row.model}\` (${row.role}) is priced per GPU-hour but no compute time was measured`,
    );
    return null;
  }
  return tokenCost + (row.computeMs / MS_PER_HOUR) * price.gpu_hour;
}

/**
 * Cache writes, per million tokens: 5-minute writes at `cache_write_per_million` and 1-hour
 * writes at `cache_write_1h_per_million` (each else the input price). Usage that gave only
 * the total has no 1-hour part, so it is all priced as 5-minute writes.
 */
function cacheWriteCost(row: UsageTotals, price: ModelPrice): number {
  const fiveMinuteRate = price.cache_write_per_million ?? price.input_per_million ?? 0;
  const oneHourRate = price.cache_write_1h_per_million ?? fiveMinuteRate;
  const oneHour = Math.min(row.cacheWrite1hTokens ?? 0, row.cacheWriteTokens);
  return (row.cacheWriteTokens - oneHour) * fiveMinuteRate + oneHour * oneHourRate;
}

/** Amount divided by a count, null when either is unknown or the count is 0. */
export function perUnit(amount: number | null, count: number): number | null {
  return amount === null || count === 0 ? null : amount / count;
}
