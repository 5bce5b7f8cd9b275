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
  /**
   * Prompts the verifier scored, one per prompt that ran (criteria × variants, for the
   * answer and each trajectory prefix; refused prompts did not run). Null when some usage
   * row was stored before prompts were counted.
   */
  prompts: number | null;
  /**
   * Forward passes run for this scorer's jobs: each pass counts 1, split evenly over the
   * rows it carried, so passes shared with other jobs (or runs) are counted once overall.
   * Depends on batching, unlike `prompts`. Null as for `prompts`.
   */
  forwardPasses: number | null;
}

export interface VerifierEffortReport {
  /** Tasks whose selected candidate is correct; 0 until selection ran. */
  solvedTasks: number;
  byScorer: VerifierEffortRow[];
  /** All verifier input tokens (computed and cached) per solved task; null with none solved. */
  tokensPerSolvedTask: number | null;
  /** Null with none solved, or when any scorer's prompts are unknown. */
  promptsPerSolvedTask: number | null;
  /** Null with none solved, or when any scorer's passes are unknown. */
  forwardPassesPerSolvedTask: number | null;
  /** Cached input tokens among all verifier input tokens, as the usage rows record them. */
  cachedShare: Rate;
}
