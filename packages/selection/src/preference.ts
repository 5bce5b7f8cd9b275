/**
 * Bradley–Terry preference: P(A beats B) = σ(scale · (R_A − R_B)). With scale 1 (the
 * default, as in DESIGN.md §7) and R in [0, 1] the probability stays within
 * [σ(−1), σ(1)] ≈ [0.27, 0.73]; a larger scale sharpens it without changing any ranking.
 */
export function preferenceProbability(scoreA: number, scoreB: number, scale = 1): number {
  return sigmoid(scale * (scoreA - scoreB));
}

export function sigmoid(x: number): number {
  // Two branches so neither exp() overflows for large |x|.
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
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
