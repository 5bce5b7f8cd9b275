import { checkConfidence, checkResamples, percentileInterval } from "./bootstrap-interval.js";
import { bootstrapMeans } from "./bootstrap-means.js";
import {
  type BootstrapOptions,
  DEFAULT_BOOTSTRAP_SEED,
  DEFAULT_CONFIDENCE,
  DEFAULT_RESAMPLES,
} from "./paired-bootstrap.js";
import { seededRandom } from "./seeded-random.js";

/** One independent group of values and its weight in the figure. */
export interface WeightedGroup {
  values: Float64Array;
  weight: number;
}

/**
 * A percentile bootstrap interval of Σ weight × mean(values) over independent groups (a
 * difference of group means, say). Each resample draws every group's values again with
 * replacement, keeping its size: the groups are strata, so a resample never leaves one
 * empty nor moves values between them. The groups are resampled one after the other from
 * one seeded stream, so the same groups in the same order and the same seed give the same
 * interval. Null when a group is empty (its mean, and so the figure, is undefined).
 */
export function stratifiedBootstrap(
  groups: readonly WeightedGroup[],
  options: BootstrapOptions = {},
): { low: number; high: number } | null {
  if (groups.some((g) => g.values.length === 0)) return null;
  const resamples = checkResamples(options.resamples ?? DEFAULT_RESAMPLES);
  const confidence = checkConfidence(options.confidence ?? DEFAULT_CONFIDENCE);
  const random = seededRandom(options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const estimates = new Float64Array(resamples);
  for (const group of groups) {
    const means = bootstrapMeans(group.values, resamples, random);
    for (let r = 0; r < resamples; r += 1) {
      estimates[r] = (estimates[r] as number) + group.weight * (means[r] as number);
    }
  }
  return percentileInterval(estimates, confidence);
}
