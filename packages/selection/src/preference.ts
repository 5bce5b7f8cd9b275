/**
 * Bradley–Terry preference: P(A beats B) = σ(scale · (R_A − R_B)). With scale 1 (the
 * default, as in docs/architecture.md, "Selection") and R in [0, 1] the probability stays
 * within [σ(−1), σ(1)] ≈ [0.27, 0.73]; a larger scale sharpens it without changing any ranking,
 * until scale·|R_A − R_B| passes ~36, where σ rounds to exactly 1 in floating point.
 */
export function preferenceProbability(scoreA: number, scoreB: number, scale = 1): number {
  return sigmoid(scale * (scoreA - scoreB));
}

/**
 * σ(x), exactly antisymmetric in floating point: σ(−x) is computed as 1 − σ(x), so
 * P(b beats a) read as 1 − P(a beats b) is the very number a direct comparison gives. The
 * pivot tournament reads one direction of each pivot pair that way; with two formulas
 * (1 − σ(x) here, σ(−x) there) candidates with equal scores drifted an ulp apart and an
 * exact tie went unseen. exp() only ever sees −|x|, so it cannot overflow.
 */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  return 1 - 1 / (1 + Math.exp(x));
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
