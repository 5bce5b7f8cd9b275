import { z } from "zod";
import { MAX_TOKEN_COUNT } from "./validation/limits.js";

// Stored as Postgres `integer`.
const tokenCount = z.int().nonnegative().max(MAX_TOKEN_COUNT);

/** Tokens a generator spent producing an answer, as recorded in the dataset. */
export const GeneratorUsageSchema = z
  .strictObject({
    model: z.string().min(1),
    input_tokens: tokenCount,
    output_tokens: tokenCount,
    cached_input_tokens: tokenCount.optional(),
    /**
     * Input tokens written to the provider's prompt cache (Anthropic's
     * `cache_creation_input_tokens`): never part of `input_tokens`, priced at the table's
     * `cache_write_per_million` (else the input price). Default 0.
     */
    cache_write_tokens: tokenCount.optional(),
    /**
     * The part of `cache_write_tokens` written to the 1-hour cache (Anthropic's
     * `cache_creation.ephemeral_1h_input_tokens`), priced at `cache_write_1h_per_million`;
     * the rest of `cache_write_tokens` is priced as 5-minute writes. Default 0.
     */
    cache_write_1h_tokens: tokenCount.optional(),
  })
  .refine((u) => (u.cache_write_1h_tokens ?? 0) <= (u.cache_write_tokens ?? 0), {
    path: ["cache_write_1h_tokens"],
    message:
      "is part of `cache_write_tokens` and cannot exceed it; give `cache_write_tokens` as the total of 5-minute and 1-hour cache writes",
  });
export type GeneratorUsage = z.infer<typeof GeneratorUsageSchema>;
