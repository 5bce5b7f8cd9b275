import { z } from "zod";
import { MAX_TOKEN_COUNT } from "./validation/limits.js";

// Stored as Postgres `integer`.
const tokenCount = z.int().nonnegative().max(MAX_TOKEN_COUNT);

/** Tokens a generator spent producing an answer, as recorded in the dataset. */
export const GeneratorUsageSchema = z.strictObject({
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
});
export type GeneratorUsage = z.infer<typeof GeneratorUsageSchema>;
