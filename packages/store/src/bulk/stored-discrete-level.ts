import { discreteScoreOfDistributions, distributionsIn, type ScoreRow } from "@assay/core";

/**
 * `discreteScoreOf(detail)`, as selection would work it out from the stored detail: the
 * `discrete_level` column, so selection reads a number instead of each candidate's detail.
 * Null (selection then reads the detail itself) when a distribution holds a value that JSON
 * stores differently (NaN, an infinity or a hole becomes null, which is no distribution).
 */
export function storedDiscreteLevel(detail: ScoreRow["detail"]): number | null {
  if (typeof detail !== "object" || detail === null || !Object.hasOwn(detail, "criteria")) {
    return null;
  }
  const distributions = distributionsIn(detail);
  for (const distribution of distributions) {
    for (let i = 0; i < distribution.length; i += 1) {
      if (!Number.isFinite(distribution[i])) return null;
    }
  }
  return discreteScoreOfDistributions(distributions);
}
