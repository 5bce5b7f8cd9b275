import { checkConfidence, checkResamples, percentileInterval } from "./bootstrap-interval.js";
import { bootstrapMeans } from "./bootstrap-means.js";
import { seededRandom } from "./seeded-random.js";

/** Resamples when not given: enough for stable 2.5% and 97.5% percentiles. */
export const DEFAULT_RESAMPLES = 2000;
/** Seed when not given, so a report prints the same interval every time. */
export const DEFAULT_BOOTSTRAP_SEED = 1;
export const DEFAULT_CONFIDENCE = 0.95;

export interface BootstrapOptions {
  /** How many resamples of the tasks. Default 2000. */
  resamples?: number;
  /** Seed of the resampling; the same seed gives the same interval. Default 1. */
  seed?: number;
  /** Coverage of the interval, in (0, 1). Default 0.95. */
  confidence?: number;
}

/** Mean of `current − baseline` over paired tasks, with a percentile bootstrap interval. */
export interface PairedBootstrap {
  /** Tasks with a value in both runs. */
  tasks: number;
  /** Means over those tasks; null when there are none. */
  current: number | null;
  baseline: number | null;
  difference: number | null;
  /** Interval bounds of the mean difference; null when there are no tasks. */
  low: number | null;
  high: number | null;
  /** True when the interval lies wholly above or below 0: the difference is unlikely noise. */
  excludesZero: boolean;
  /**
   * "normal" where the interval is the one the bootstrap converges to, from the
   * differences' sum and sum of squares (many tasks of many distinct differences:
   * `MOMENTS_FROM`); absent where resamples were drawn.
   */
  interval?: "normal";
}

/**
 * Paired bootstrap over tasks: `current[i]` and `baseline[i]` are one task's value in each
 * run. Each resample draws `n` tasks with replacement (seeded) and takes the mean of their
 * differences; the interval is the (1 − confidence)/2 and (1 + confidence)/2 percentiles of
 * those means (linear interpolation between order statistics). Pairing removes the spread
 * between tasks, which is most of the noise when two runs score the same tasks. Resamples
 * are drawn exactly, by index or, for differences with few distinct values, as counts per
 * value (see `bootstrapMeans`).
 */
export function pairedBootstrap(
  current: readonly number[],
  baseline: readonly number[],
  options: BootstrapOptions = {},
): PairedBootstrap {
  if (current.length !== baseline.length) {
    throw new RangeError(
      `Expected paired values of equal length, got ${current.length} and ${baseline.length}`,
    );
  }
  const resamples = checkResamples(options.resamples ?? DEFAULT_RESAMPLES);
  const confidence = checkConfidence(options.confidence ?? DEFAULT_CONFIDENCE);
  const n = current.length;
  if (n === 0) {
    return noPairedTasks();
  }
  const differences = new Float64Array(n);
  for (let i = 0; i < n; i += 1) differences[i] = (current[i] as number) - (baseline[i] as number);
  const random = seededRandom(options.seed ?? DEFAULT_BOOTSTRAP_SEED);
  const means = bootstrapMeans(differences, resamples, random);
  const { low, high } = percentileInterval(means, confidence);
  return {
    tasks: n,
    current: mean(current),
    baseline: mean(baseline),
    difference: mean(differences),
    low,
    high,
    excludesZero: low > 0 || high < 0,
  };
}

/** The comparison of no paired task: no figure, and no interval to exclude zero. */
export function noPairedTasks(): PairedBootstrap {
  return {
    tasks: 0,
    current: null,
    baseline: null,
    difference: null,
    low: null,
    high: null,
    excludesZero: false,
  };
}

function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i] as number;
  return sum / values.length;
}
