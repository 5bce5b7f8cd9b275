export interface DistributionValue {
  /** R = Σ p·φ / Σ p, with φ(g) = (g−1)/(G−1); null when the mass is at or below the minimum. */
  value: number | null;
  /** Σ p over the G scale tokens (probability under the full softmax). */
  mass: number;
  /** p(level) / mass for each level, worst first (all 0 when the mass is 0). */
  distribution: number[];
}

/**
 * The expected score over the scale tokens at the score position. Probabilities come from
 * a float64 softmax over the whole logits row, so `mass` is the real share of the scale.
 */
export function distributionValue(
  logits: Float32Array,
  scaleIds: readonly number[],
  minMass = 0,
): DistributionValue {
  let max = Number.NEGATIVE_INFINITY;
  for (const logit of logits) if (logit > max) max = logit;
  let sum = 0;
  for (const logit of logits) sum += Math.exp(logit - max);
  const probabilities = scaleIds.map(
    (id) => Math.exp((logits[id] ?? Number.NEGATIVE_INFINITY) - max) / sum,
  );
  return scaleValue(probabilities, minMass);
}

/**
 * R, the mass and the G-bin distribution from the scale tokens' probabilities (worst level
 * first), however they were computed: from a whole logits row, or in a prepared graph.
 */
export function scaleValue(probabilities: readonly number[], minMass = 0): DistributionValue {
  const mass = probabilities.reduce((a, b) => a + b, 0);
  const levels = probabilities.length;
  if (!(mass > minMass)) return { value: null, mass, distribution: probabilities.map(() => 0) };
  const distribution = probabilities.map((p) => p / mass);
  const value = distribution.reduce((acc, p, g) => acc + (p * g) / (levels - 1), 0);
  return { value: Math.min(1, Math.max(0, value)), mass, distribution };
}
