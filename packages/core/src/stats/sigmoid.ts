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
