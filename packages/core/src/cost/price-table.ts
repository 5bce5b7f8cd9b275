import { z } from "zod";

const price = z.number().nonnegative();

/**
 * What one model costs. Token prices are per million tokens; `gpu_hour` is charged on the
 * measured compute time (usage `compute_ms`). Both kinds may be given; they add up. Any
 * model may take either: a verifier priced by its tokens costs the same on every rerun,
 * while measured wall-clock time (and so a GPU-hour cost) grows with the machine's load.
 */
export const ModelPriceSchema = z
  .strictObject({
    input_per_million: price.optional(),
    /** Default: the input price (no cache discount). */
    cached_input_per_million: price.optional(),
    output_per_million: price.optional(),
    /** Writing a token to the provider's prompt cache. Default: the input price. */
    cache_write_per_million: price.optional(),
    /**
     * Writing a token to a 1-hour prompt cache (Anthropic's `ephemeral_1h_input_tokens`).
     * Default: the cache-write price, else the input price.
     */
    cache_write_1h_per_million: price.optional(),
    gpu_hour: price.optional(),
  })
  .refine(
    (p) =>
      p.input_per_million !== undefined ||
      p.output_per_million !== undefined ||
      p.gpu_hour !== undefined,
    {
      message: "give token prices (input_per_million, output_per_million) or `gpu_hour`",
    },
  );
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * A price table, as written in a file (`--prices prices.yaml`):
 *
 * ```yaml
 * currency: USD
 * models:
 *   deepseek-v4-flash: { input_per_million: 0.14, cached_input_per_million: 0.028, output_per_million: 0.28 }
 *   qwen3-verifier-0.6b: { input_per_million: 0.02, cached_input_per_million: 0.005 }
 *   qwen3-verifier-8b: { gpu_hour: 2.5 }   # measured time: varies with load
 * ```
 */
export const PriceTableSchema = z.strictObject({
  /** Shown next to every amount. Default "USD". */
  currency: z.string().min(1).default("USD"),
  models: z.record(z.string().min(1), ModelPriceSchema),
});
export type PriceTable = z.infer<typeof PriceTableSchema>;
export type PriceTableInput = z.input<typeof PriceTableSchema>;
