import { checkConfidence, checkResamples, percentileInterval } from "./bootstrap-interval.js";
import { bootstrapMeansOfCounts } from "./bootstrap-means.js";
import { normalQuantile } from "./normal-quantile.js";
import {
  type BootstrapOptions,
  DEFAULT_BOOTSTRAP_SEED,
  DEFAULT_CONFIDENCE,
  DEFAULT_RESAMPLES,
  noPairedTasks,
  type PairedBootstrap,
} from "./paired-bootstrap.js";
import { seededRandom } from "./seeded-random.js";

/**
 * Paired per-task values as a database can count them without sending a row per task:
 * the two runs' sums over the paired tasks and how many tasks have each difference.
 */
export interface CountedDifferences {
  /** Sums of each run's per-task values over the paired tasks. */
  currentSum: number;
  baselineSum: number;
  /** Each distinct `current − baseline` with its number of tasks, in ascending order. */
  differences: readonly { value: number; count: number }[];
  /**
   * Σ (current − baseline)² over the paired tasks, given where the distinct differences were
   * too many to resample exactly (`MOMENTS_FROM`): `differences` then holds one entry, the
   * mean difference over all the tasks, and the interval is the normal one.
   */
  squareSum?: number;
}

/**
 * Where a figure's differences are summed instead of counted: more distinct values than
 * `distinct` over more tasks than `tasks`. Below either, an exact resample costs at most
 * about a second (`tasks` values drawn one by one, or `distinct` binomial draws, per
 * resample); above both, it grows with the tasks (minutes at 2.5M continuous means).
 */
export const MOMENTS_FROM = { distinct: 32, tasks: 20_000 } as const;

/**
 * `pairedBootstrap` from counted differences: the same interval as `pairedBootstrap` gives
 * for the tasks laid out with their differences in ascending order (the order does not
 * change what a bootstrap estimates, only which draw a seed makes). Accuracies have at
 * most three distinct differences and a scorer of a few levels a few dozen, so a report
 * of a million tasks reads a few rows.
 */
export function pairedBootstrapOfCounts(
  counted: CountedDifferences,
  options: BootstrapOptions = {},
): PairedBootstrap {
  const resamples = checkResamples(options.resamples ?? DEFAULT_RESAMPLES);
  const confidence = checkConfidence(options.confidence ?? DEFAULT_CONFIDENCE);
  const groups = { values: [] as number[], counts: [] as number[] };
  let previous = Number.NEGATIVE_INFINITY;
  for (const { value, count } of counted.differences) {
    if (!(value > previous) || !Number.isInteger(count) || count < 1) {
      throw new RangeError(
        "Expected differences in ascending order, each once, with whole counts from 1 up",
      );
    }
    previous = value;
    groups.values.push(value);
    groups.counts.push(count);
  }
  const n = groups.counts.reduce((sum, count) => sum + count, 0);
  if (n === 0) {
    return noPairedTasks();
  }
  if (counted.squareSum !== undefined) {
    return normalInterval(counted, n, counted.squareSum, confidence);
  }
  const random = seededRandom(options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const means = bootstrapMeansOfCounts(groups, resamples, random);
  const { low, high } = percentileInterval(means, confidence);
  // The difference from the laid-out values, summed in order as `pairedBootstrap` does.
  let sum = 0;
  groups.values.forEach((value, j) => {
    for (let i = 0; i < (groups.counts[j] as number); i += 1) sum += value;
  });
  return {
    tasks: n,
    current: counted.currentSum / n,
    baseline: counted.baselineSum / n,
    difference: sum / n,
    low,
    high,
    excludesZero: low > 0 || high < 0,
  };
}

/**
 * The interval a percentile bootstrap of many tasks converges to: the mean difference ±
 * z·σ/√n, σ² the differences' own variance (what a resample's mean varies by). At the sizes
 * it is used for (`MOMENTS_FROM`) the bootstrap's means are normal to within its own
 * resampling noise.
 */
function normalInterval(
  counted: CountedDifferences,
  n: number,
  squareSum: number,
  confidence: number,
): PairedBootstrap {
  if (counted.differences.length !== 1) {
    throw new RangeError("Expected summed differences as one entry: their mean over all tasks");
  }
  const difference = counted.differences[0]?.value as number;
  const variance = Math.max(0, squareSum / n - difference * difference);
  const half = normalQuantile((1 + confidence) / 2) * Math.sqrt(variance / n);
  const [low, high] = [difference - half, difference + half];
  return {
    tasks: n,
    current: counted.currentSum / n,
    baseline: counted.baselineSum / n,
    difference,
    low,
    high,
    excludesZero: low > 0 || high < 0,
    interval: "normal",
  };
}
