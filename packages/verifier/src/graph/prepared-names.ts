/**
 * Inputs and outputs a prepared graph adds (see `prepareModel`). The loader recognizes a
 * prepared graph by its `score_position` input.
 */
export const PREPARED = {
  /** int64 [batch]: the position each row is scored at (its last real token). */
  position: "score_position",
  /** int64 [G]: token ids of the scale levels (distribution head). */
  tokenIds: "score_token_ids",
  /** float32 [batch, G]: log-probability of each scale token at the score position. */
  logprobs: "score_logprobs",
  /** float32 [batch, hidden]: the final hidden state at the score position (probe head). */
  hidden: "score_hidden",
} as const;

export type PreparedHead = "distribution" | "probe";

/** The output a prepared graph returns for a head. */
export function preparedOutput(head: PreparedHead): string {
  return head === "distribution" ? PREPARED.logprobs : PREPARED.hidden;
}
