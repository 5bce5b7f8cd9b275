import { z } from "zod";

/**
 * Why a sample got no score. Unscored is never silently 0 and never silently "incorrect":
 * reports count each reason separately.
 */
export const UNSCORED_REASONS = [
  "unparseable", // the answer (or the verdict) could not be parsed
  "invalid_target", // the sample's target does not fit the scorer
  "overflow", // the answer alone does not fit the verifier's window
  "no_score_mass", // the verifier put zero probability on every score token
  "timeout", // a bounded computation (e.g. a regex) ran out of budget
  "error", // the scorer threw; the message says why
  // The generator gave no text to score (answers joined from a batch output):
  "refusal", // the model refused; the message quotes its refusal
  "tool_call", // the reply holds only tool or function calls
  "incomplete", // the reply stopped before any text (the provider's reason in the message)
] as const;
export type UnscoredReason = (typeof UNSCORED_REASONS)[number];

const tokens = z.int().nonnegative();

/**
 * What a model-based scorer's calls cost and how fitting treated them, returned beside the
 * score (not inside `detail`) so that the job handler stores them as typed `truncations`
 * and `usage` rows. Deterministic scorers leave it out.
 */
export const ModelCallsSchema = z.object({
  /** One record per prompt, every call included, cut or not. */
  truncations: z.array(
    z.object({
      /**
       * The criterion of the row's key: "" for a scorer with a single criterion, as on its
       * score row, so the record joins its score on the whole key.
       */
      criterion: z.string(),
      variant: z.int().nonnegative(),
      originalTokens: tokens,
      keptTokens: tokens,
      droppedTokens: tokens,
      /** The slot whose text was cut, or null when nothing was. */
      slot: z.string().nullable(),
      policy: z.string(),
    }),
  ),
  usage: z.object({
    model: z.string(),
    device: z.string(),
    /** Tokens computed; `cachedInputTokens` (reused) are counted apart. */
    inputTokens: tokens,
    cachedInputTokens: tokens.optional(),
    outputTokens: tokens,
    computeMs: z.number().nonnegative(),
    /** Prompts the model scored: each ran in a forward pass (refused ones did not). */
    prompts: tokens.optional(),
    /**
     * This job's share of the forward passes the model ran: a pass counts 1 in all, split
     * evenly over its rows, so the shares of every job a pass served add up to 1.
     */
    forwardPasses: z.number().nonnegative().optional(),
  }),
});
export type ModelCalls = z.infer<typeof ModelCallsSchema>;

export const ScoreSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("scored"),
    value: z.number().min(0).max(1),
    detail: z.record(z.string(), z.unknown()).optional(),
    calls: ModelCallsSchema.optional(),
  }),
  z.object({
    status: z.literal("unscored"),
    reason: z.enum(UNSCORED_REASONS),
    message: z.string().optional(),
    detail: z.record(z.string(), z.unknown()).optional(),
    calls: ModelCallsSchema.optional(),
  }),
]);
export type Score = z.infer<typeof ScoreSchema>;
export type ScoredScore = Extract<Score, { status: "scored" }>;
export type UnscoredScore = Extract<Score, { status: "unscored" }>;

export function scored(value: number, detail?: Record<string, unknown>): ScoredScore {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new RangeError(`Expected a score value in [0, 1], got ${value}`);
  }
  return detail === undefined ? { status: "scored", value } : { status: "scored", value, detail };
}

export function unscored(
  reason: UnscoredReason,
  message?: string,
  detail?: Record<string, unknown>,
): UnscoredScore {
  const score: UnscoredScore = { status: "unscored", reason };
  if (message !== undefined) score.message = message;
  if (detail !== undefined) score.detail = detail;
  return score;
}
