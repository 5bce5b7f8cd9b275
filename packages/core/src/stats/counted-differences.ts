import { checkConfidence, checkResamples, percentileInterval } from "./bootstrap-interval.js";
import { bootstrapMeansOfCounts } from "./bootstrap-means.js";
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
}

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
