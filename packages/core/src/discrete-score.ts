// In core rather than selection: the store works out each verifier row's level when it
// writes the row, so that selection reads one number instead of the distributions.

/**
 * What a discrete judge would have answered, from a verifier score's detail: the argmax
 * level of each kept G-bin distribution, scaled to [0, 1] like φ, averaged over criteria
 * and variants. Null when the detail has no distribution (probe head, unscored).
 */
export function discreteScoreOf(detail: unknown): number | null {
  return discreteScoreOfDistributions(distributionsIn(detail));
}

/** As discreteScoreOf, from the distributions a detail holds (anything else is skipped). */
export function discreteScoreOfDistributions(distributions: unknown): number | null {
  if (!Array.isArray(distributions)) return null;
  const levels: number[] = [];
  for (const distribution of distributions) {
    if (!isDistribution(distribution)) continue;
    if (distribution.length < 2) continue;
    levels.push(argmax(distribution) / (distribution.length - 1));
  }
  if (levels.length === 0) return null;
  return levels.reduce((sum, level) => sum + level, 0) / levels.length;
}

/** First maximum: a discrete judge writing its most likely token. */
function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i += 1) {
    if ((values[i] as number) > (values[best] as number)) best = i;
  }
  return best;
}

function isDistribution(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((p) => typeof p === "number");
}

/** The distributions of a verifier detail, criterion by criterion, variant by variant. */
// The detail is untyped JSON from the store, so each level is checked before use.
export function distributionsIn(detail: unknown): number[][] {
  const criteria = fieldOf(detail, "criteria");
  if (!Array.isArray(criteria)) return [];
  return criteria.flatMap((criterion) => {
    const variants = fieldOf(criterion, "variants");
    if (!Array.isArray(variants)) return [];
    return variants.map((variant) => fieldOf(variant, "distribution")).filter(isDistribution);
  });
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
