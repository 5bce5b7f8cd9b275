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
});
export type GeneratorUsage = z.infer<typeof GeneratorUsageSchema>;
