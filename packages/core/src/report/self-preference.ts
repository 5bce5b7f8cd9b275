/**
 * A verifier that favours answers written by its own model family scores them higher than
 * other generators' answers of the same correctness. The gap averages, over correct and
 * incorrect answers, (same-family mean score − other-family mean score), so a family that
 * simply answers better does not count as preferred.
 */
export const SELF_PREFERENCE_THRESHOLD = 0.05;

export interface GroupMean {
  answers: number;
  /** Mean verifier score; null with no answers. */
  mean: number | null;
}

export interface SelfPreference {
  scorer: string;
  /** assay.json `family` of the verifier. */
  family: string;
  /** Generators whose model name contains the family (case-insensitive). */
  sameFamily: { correct: GroupMean; incorrect: GroupMean };
  otherFamily: { correct: GroupMean; incorrect: GroupMean };
  /** Mean over correct and incorrect of same − other; null when a group is empty. */
  gap: number | null;
  /** The gap is above SELF_PREFERENCE_THRESHOLD. */
  warning: boolean;
}

/** One row per (generator model, label): the sum and count of a verifier's scores. */
export interface SelfPreferenceCell {
  generator: string;
  label: boolean;
  sum: number;
  answers: number;
}

export function selfPreference(
  scorer: string,
  family: string,
  cells: readonly SelfPreferenceCell[],
  threshold = SELF_PREFERENCE_THRESHOLD,
): SelfPreference {
  const needle = family.toLowerCase();
  const group = (same: boolean, label: boolean): GroupMean => {
    const chosen = cells.filter(
      (c) => c.label === label && c.generator.toLowerCase().includes(needle) === same,
    );
    const answers = chosen.reduce((n, c) => n + c.answers, 0);
    const sum = chosen.reduce((n, c) => n + c.sum, 0);
    return { answers, mean: answers === 0 ? null : sum / answers };
  };
  const sameFamily = { correct: group(true, true), incorrect: group(true, false) };
  const otherFamily = { correct: group(false, true), incorrect: group(false, false) };
  const diff = (a: GroupMean, b: GroupMean) =>
    a.mean === null || b.mean === null ? null : a.mean - b.mean;
  const correct = diff(sameFamily.correct, otherFamily.correct);
  const incorrect = diff(sameFamily.incorrect, otherFamily.incorrect);
  const gap = correct === null || incorrect === null ? null : (correct + incorrect) / 2;
  return {
    scorer,
    family,
    sameFamily,
    otherFamily,
    gap,
    warning: gap !== null && gap > threshold,
  };
}
