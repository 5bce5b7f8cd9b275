import type { ModelPrice } from "../cost/price-table.js";

/** What a batch will send and may receive, counted before it is sent. */
export interface BatchTokenCounts {
  rows: number;
  requests: number;
  /** Prompt tokens billed: once per request (`n` answers share one prompt). */
  inputTokens: number;
  /** The most output tokens: max tokens × answers per row; null without `--max-tokens`. */
  maxOutputTokens: number | null;
}

export interface BatchCostEstimate {
  /** Every prompt token at the uncached input price; null when the model has no price. */
  inputCost: number | null;
  /** Every answer at its max tokens: an upper bound; null without max tokens or price. */
  maxOutputCost: number | null;
}

/**
 * The batch's cost at the price table's prices for its model. Prompt caching can only
 * lower the input cost, and answers usually stop before max tokens, so both are upper
 * bounds for prompts of the counted size.
 */
export function estimateBatchCost(
  price: ModelPrice | undefined,
  counts: BatchTokenCounts,
): BatchCostEstimate {
  const perToken = (perMillion: number | undefined) =>
    perMillion === undefined ? undefined : perMillion / 1_000_000;
  const input = perToken(price?.input_per_million);
  const output = perToken(price?.output_per_million);
  return {
    inputCost: input === undefined ? null : counts.inputTokens * input,
    maxOutputCost:
      output === undefined || counts.maxOutputTokens === null
        ? null
        : counts.maxOutputTokens * output,
  };
}

/** The approximation `--estimate` counts every prompt with: one token per 4 characters. */
export function approximateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
