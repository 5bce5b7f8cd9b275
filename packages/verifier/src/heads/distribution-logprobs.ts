import { type DistributionValue, scaleValue } from "./distribution.js";

/**
 * The distribution head on a prepared graph, which returns the scale tokens'
 * log-probabilities under the full softmax (computed in the graph at the score position):
 * p = exp(log p), then the same R = Σ p·φ / Σ p, mass and G-bin distribution as
 * `distributionValue` computes from a whole logits row.
 */
export function distributionFromLogProbs(logProbs: Float32Array, minMass = 0): DistributionValue {
  return scaleValue(
    Array.from(logProbs, (logP) => Math.exp(logP)),
    minMass,
  );
}
