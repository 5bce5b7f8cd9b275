/**
 * How well scores in [0, 1] separate and predict binary labels. Pure functions: the
 * verifier's `probe fit`/`probe eval` and the run reports compute the same figures.
 */

/** One scored prediction: `score` in [0, 1], `label` the truth. */
export interface LabelledScore {
  score: number;
  label: boolean;
}

/**
 * Area under the ROC curve: the probability that a random positive scores above a random
 * negative, ties counting one half (Mann–Whitney U with average ranks). Null when either
 * class is absent (the area is undefined, not 0.5).
 */
export function auroc(points: readonly LabelledScore[]): number | null {
  const positives = points.filter((p) => p.label).length;
  const negatives = points.length - positives;
  if (positives === 0 || negatives === 0) return null;
  const sorted = [...points].sort((a, b) => a.score - b.score);
  let positiveRankSum = 0;
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]?.score === sorted[i]?.score) j += 1;
    // Ranks i+1 .. j+1 are tied: each gets their mean.
    const averageRank = (i + j + 2) / 2;
    for (let k = i; k <= j; k++) if (sorted[k]?.label) positiveRankSum += averageRank;
    i = j + 1;
  }
  const u = positiveRankSum - (positives * (positives + 1)) / 2;
  return u / (positives * negatives);
}

/** Mean squared difference between score and label (1 or 0); null with no points. In [0, 1]. */
export function brierScore(points: readonly LabelledScore[]): number | null {
  if (points.length === 0) return null;
  let sum = 0;
  for (const p of points) sum += (p.score - (p.label ? 1 : 0)) ** 2;
  return sum / points.length;
}

/** Share of points whose score ≥ `threshold` agrees with the label; null with no points. */
export function accuracyAt(points: readonly LabelledScore[], threshold = 0.5): number | null {
  if (points.length === 0) return null;
  return points.filter((p) => p.score >= threshold === p.label).length / points.length;
}

/** One bin of a reliability diagram. */
export interface ReliabilityBin {
  /** Scores in [lower, upper); the last bin includes 1. */
  lower: number;
  upper: number;
  count: number;
  /** Mean score of the bin's points; null when empty. */
  meanScore: number | null;
  /** Share of positives among the bin's points; null when empty. */
  positiveRate: number | null;
}

/** `bins` equal-width bins over [0, 1] (scores outside are clamped into the end bins). */
export function reliabilityBins(points: readonly LabelledScore[], bins = 10): ReliabilityBin[] {
  if (!Number.isInteger(bins) || bins < 1) {
    throw new RangeError(`Expected \`bins\` to be a positive integer, got ${bins}`);
  }
  const sums = Array.from({ length: bins }, () => ({ count: 0, score: 0, positives: 0 }));
  for (const p of points) {
    const index = Math.min(bins - 1, Math.max(0, Math.floor(p.score * bins)));
    const bin = sums[index];
    if (bin === undefined) continue;
    bin.count += 1;
    bin.score += p.score;
    if (p.label) bin.positives += 1;
  }
  return sums.map((bin, index) => ({
    lower: index / bins,
    upper: (index + 1) / bins,
    count: bin.count,
    meanScore: bin.count === 0 ? null : bin.score / bin.count,
    positiveRate: bin.count === 0 ? null : bin.positives / bin.count,
  }));
}

/**
 * Expected calibration error: over equal-width bins, the count-weighted mean of
 * |mean score − positive rate|. 0 when every bin's scores match its positive rate; null
 * with no points.
 */
export function expectedCalibrationError(
  points: readonly LabelledScore[],
  bins = 10,
): number | null {
  if (points.length === 0) return null;
  let sum = 0;
  for (const bin of reliabilityBins(points, bins)) {
    if (bin.meanScore === null || bin.positiveRate === null) continue;
    sum += bin.count * Math.abs(bin.meanScore - bin.positiveRate);
  }
  return sum / points.length;
}

/** The figures `probe fit`, `probe eval` and reports print for one scorer. */
export interface CalibrationSummary {
  count: number;
  positives: number;
  auroc: number | null;
  accuracy: number | null;
  brier: number | null;
  ece: number | null;
  bins: ReliabilityBin[];
}

export function calibrationSummary(
  points: readonly LabelledScore[],
  bins = 10,
): CalibrationSummary {
  return {
    count: points.length,
    positives: points.filter((p) => p.label).length,
    auroc: auroc(points),
    accuracy: accuracyAt(points, 0.5),
    brier: brierScore(points),
    ece: expectedCalibrationError(points, bins),
    bins: reliabilityBins(points, bins),
  };
}
