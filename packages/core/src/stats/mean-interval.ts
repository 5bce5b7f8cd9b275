/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * A 95% interval for the mean of `n` values in [0, 1] from their sum and sum of squares,
 * so a report can compute it from a few stored numbers whatever the size of the run.
 * Values that are all 0 or 1 are a pass rate: Wilson's score interval, which stays inside
 * [0, 1] and is honest at small n or a rate of 0 or 1. Otherwise the normal approximation
 * mean ± z·s/√n, clipped to [0, 1].
 */
export function meanInterval(
  n: number,
  sum: number,
  sumOfSquares: number,
  binary: boolean,
): { low: number; high: number } {
  if (n <= 0) throw new RangeError(`Expected at least one value, got n = ${n}`);
  const mean = sum / n;
  if (binary) return wilson(mean, n);
  const variance = n > 1 ? Math.max(0, (sumOfSquares - n * mean * mean) / (n - 1)) : 0;
  const half = Z95 * Math.sqrt(variance / n);
  return { low: Math.max(0, mean - half), high: Math.min(1, mean + half) };
}

function wilson(p: number, n: number): { low: number; high: number } {
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
