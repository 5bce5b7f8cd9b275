import type { DistributionValue } from "./distribution.js";

/**
 * The distribution head on a prepared graph, which returns the scale tokens'
 * log-probabilities under the full softmax (computed in the graph at the score position):
 * p = exp(log p), then the same R = Σ p·φ / Σ p, mass and G-bin distribution as
 * `distributionValue` computes from a whole logits row.
 */
export function distributionFromLogProbs(logProbs: Float32Array, minMass = 0): DistributionValue {
  const probabilities = Array.from(logProbs, (logP) => Math.exp(logP));
  const mass = probabilities.reduce((a, b) => a + b, 0);
  const levels = probabilities.length;
  if (!(mass > minMass)) return { value: null, mass, distribution: probabilities.map(() => 0) };
  const distribution = probabilities.map((p) => p / mass);
  const value = distribution.reduce((acc, p, g) => acc + (p * g) / (levels - 1), 0);
  return { value: Math.min(1, Math.max(0, value)), mass, distribution };
}
