import type { ModelPrice } from "./price-table.js";

/**
 * What a model's cost was computed from. Tokens are counted from the prompts, so the same
 * work on the same data always costs the same; `gpu_hour` is charged on the wall-clock
 * compute time measured while scoring, which grows with the machine's load and batching.
 */
export type PriceBasis = "tokens" | "gpu_hour" | "tokens_and_gpu_hour";

/** The basis of one (role, model) row of usage; null when the model is not in the table. */
export interface ModelPricing {
  role: "generator" | "verifier";
  model: string;
  basis: PriceBasis | null;
}

/** Shown beside a cost that used a GPU-hour price. */
export const MEASURED_TIME_NOTE =
  "priced per GPU-hour from measured wall-clock compute time: the same work costs more on a busy machine; give the model per-million-token prices (input_per_million, cached_input_per_million) for a cost that is the same on every rerun";

export function priceBasisOf(price: ModelPrice | undefined): PriceBasis | null {
  if (price === undefined) return null;
  const tokens =
    price.input_per_million !== undefined ||
    price.cached_input_per_million !== undefined ||
    price.cache_write_per_million !== undefined ||
    price.cache_write_1h_per_million !== undefined ||
    price.output_per_million !== undefined;
  if (price.gpu_hour === undefined) return "tokens";
  return tokens ? "tokens_and_gpu_hour" : "gpu_hour";
}

/** Whether any row's cost came from measured compute time, so it varies between reruns. */
export function usesMeasuredTime(pricing: readonly ModelPricing[]): boolean {
  return pricing.some((p) => p.basis === "gpu_hour" || p.basis === "tokens_and_gpu_hour");
}
