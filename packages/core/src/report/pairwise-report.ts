import type { Rate } from "./rate.js";

/**
 * A tournament ranked by a pairwise judge, beside best-of-N on the pointwise score, over
 * the same tasks: those whose pass@1, oracle and both picks' correctness are known.
 */
export interface PairwiseReport {
  /** Tasks selection ranked with the judge. */
  tasks: number;
  /** Best-of-N on the pointwise verifier score. */
  pointwiseSelected: Rate;
  /** The judged pivot tournament's pick. */
  pairwiseSelected: Rate;
  /** Pairs judged in both orders whose preferred answer changed with the order. */
  positionBias: Rate;
}

/** What the verifier spent, by scorer (the pointwise verifier and the pairwise judge apart). */
export interface VerifierEffortRow {
  scorer: string;
  /** Input tokens computed. */
  inputTokens: number;
  /** Input tokens reused from a cache (counted apart, as in `usage`). */
  cachedInputTokens: number;
  /** Prompts that ran a forward pass (fitted, not refused). */
  forwardPasses: number;
}

export interface VerifierEffortReport {
  /** Tasks whose selected candidate is correct; 0 until selection ran. */
  solvedTasks: number;
  byScorer: VerifierEffortRow[];
  /** All verifier input tokens (computed and cached) per solved task; null with none solved. */
  tokensPerSolvedTask: number | null;
  forwardPassesPerSolvedTask: number | null;
  /** Cached input tokens among all verifier input tokens, as the usage rows record them. */
  cachedShare: Rate;
}
