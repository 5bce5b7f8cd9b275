import { sigmoid } from "@assay/core";

/**
 * Bradley–Terry preference: P(A beats B) = σ(scale · (R_A − R_B)). With scale 1 (the
 * default, as in docs/architecture.md, "Selection") and R in [0, 1] the probability stays
 * within [σ(−1), σ(1)] ≈ [0.27, 0.73]; a larger scale sharpens it without changing any ranking,
 * until scale·|R_A − R_B| passes ~36, where σ rounds to exactly 1 in floating point.
 */
export function preferenceProbability(scoreA: number, scoreB: number, scale = 1): number {
  return sigmoid(scale * (scoreA - scoreB));
}

/** One pairwise comparison used by a selection, kept so a report can show its evidence. */
export interface Comparison {
  /** Candidate indices. */
  a: number;
  b: number;
  /** P(a beats b). */
  probability: number;
}

/** P(a beats b) for two candidate indices; plug in a pairwise judge here. */
export type CompareFn = (a: number, b: number) => number;
