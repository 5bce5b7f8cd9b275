import { binomialDraw } from "./random-draws.js";

/**
 * The means of `resamples` bootstrap resamples of `values`: each resample draws
 * `values.length` values with replacement. Two exact ways to draw the same thing:
 *
 * - `direct`: draw every index, O(n) per resample;
 * - `grouped`: values that repeat (0/1 accuracies give three differences) are counted
 *   once each; a resample is then a multinomial draw of how often each distinct value is
 *   picked, made of exact binomial draws, O(k log n) per resample for k distinct values.
 *
 * `auto` takes whichever costs less, so a million tasks of accuracies take milliseconds.
 */
export function bootstrapMeans(
  values: Float64Array,
  resamples: number,
  random: () => number,
  method: "auto" | "direct" | "grouped" = "auto",
): Float64Array {
  const groups = method === "direct" ? undefined : distinctValues(values);
  const useGrouped =
    groups !== undefined &&
    (method === "grouped" ||
      groups.values.length * (Math.log2(values.length) + 1) * 8 < values.length);
  return useGrouped
    ? groupedMeans(groups, values.length, resamples, random)
    : directMeans(values, resamples, random);
}

/**
 * The same draw from values already counted (distinct values with how often each occurs,
 * in a fixed order): the grouped draw when it costs less, else the direct draw over the
 * values laid out in that order. Used where a database counted the values, so that only
 * the distinct values travel.
 */
export function bootstrapMeansOfCounts(
  groups: Groups,
  resamples: number,
  random: () => number,
): Float64Array {
  const n = groups.counts.reduce((sum, count) => sum + count, 0);
  if (groups.values.length * (Math.log2(n) + 1) * 8 < n) {
    return groupedMeans(groups, n, resamples, random);
  }
  const values = new Float64Array(n);
  let at = 0;
  groups.values.forEach((value, j) => {
    values.fill(value, at, at + (groups.counts[j] as number));
    at += groups.counts[j] as number;
  });
  return directMeans(values, resamples, random);
}

function directMeans(values: Float64Array, resamples: number, random: () => number): Float64Array {
  const n = values.length;
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += values[Math.floor(random() * n)] as number;
    means[r] = sum / n;
  }
  return means;
}

export interface Groups {
  /** Distinct values in order of first appearance. */
  values: number[];
  counts: number[];
}

function distinctValues(values: Float64Array): Groups {
  const index = new Map<number, number>();
  const groups: Groups = { values: [], counts: [] };
  for (const value of values) {
    const at = index.get(value);
    if (at === undefined) {
      index.set(value, groups.values.length);
      groups.values.push(value);
      groups.counts.push(1);
    } else {
      groups.counts[at] = (groups.counts[at] as number) + 1;
    }
  }
  return groups;
}

/** Multinomial counts as a chain of binomials: each value's share of what is left. */
function groupedMeans(
  groups: Groups,
  n: number,
  resamples: number,
  random: () => number,
): Float64Array {
  const means = new Float64Array(resamples);
  const k = groups.values.length;
  for (let r = 0; r < resamples; r += 1) {
    let left = n;
    let leftCount = n;
    let sum = 0;
    for (let j = 0; j < k && left > 0; j += 1) {
      const count = groups.counts[j] as number;
      const drawn = j === k - 1 ? left : binomialDraw(random, left, count / leftCount);
      sum += (groups.values[j] as number) * drawn;
      left -= drawn;
      leftCount -= count;
    }
    means[r] = sum / n;
  }
  return means;
}
