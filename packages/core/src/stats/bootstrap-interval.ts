/** What the bootstraps share: the percentile interval and the checks of their options. */

/**
 * The (1 − confidence)/2 and (1 + confidence)/2 percentiles of resampled estimates (sorted
 * here, in place), interpolating between order statistics (R's type 7).
 */
export function percentileInterval(
  estimates: Float64Array,
  confidence: number,
): { low: number; high: number } {
  estimates.sort();
  const tail = (1 - confidence) / 2;
  return { low: percentile(estimates, tail), high: percentile(estimates, 1 - tail) };
}

function percentile(sorted: Float64Array, p: number): number {
  const position = (sorted.length - 1) * p;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const lo = sorted[below] as number;
  const hi = sorted[above] as number;
  return lo === hi ? lo : lo + (position - below) * (hi - lo);
}

export function checkResamples(value: number): number {
  if (Number.isInteger(value) && value >= 1) return value;
  throw new RangeError(`Expected \`resamples\` to be a whole number from 1 and up, got ${value}`);
}

export function checkConfidence(value: number): number {
  if (value > 0 && value < 1) return value;
  throw new RangeError(`Expected \`confidence\` to be a number between 0 and 1, got ${value}`);
}
