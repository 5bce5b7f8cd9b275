import {
  DEFAULT_CONFIDENCE,
  SELF_PREFERENCE_MIN_ANSWERS,
  SELF_PREFERENCE_THRESHOLD,
  type SelfPreference,
} from "@assay/core";

const LEVEL = `${Math.round(DEFAULT_CONFIDENCE * 100)}%`;

/** "0.073 (95% interval -0.031 to 0.178)", or why there is no gap. */
export function gapText(c: SelfPreference): string {
  if (c.gap === null) return "n/a (a group has no answers)";
  return `${c.gap.toFixed(3)} (${intervalText(c)})`;
}

export function intervalText(c: SelfPreference): string {
  if (c.low === null || c.high === null) return "n/a";
  return `${LEVEL} interval ${c.low.toFixed(3)} to ${c.high.toFixed(3)}`;
}

/** How many answers each mean is over, so a reader can judge the interval. */
export function answersText(c: SelfPreference): string {
  const { sameFamily: same, otherFamily: other } = c;
  return `same family ${same.correct.answers} correct, ${same.incorrect.answers} incorrect; other generators ${other.correct.answers} correct, ${other.incorrect.answers} incorrect`;
}

/** The warning, or why there is none: the reader sees which rule held it back. */
export function verdictText(c: SelfPreference): string {
  if (c.warning) {
    return `${c.scorer} scores ${c.family} answers ${c.gap?.toFixed(3)} higher than other generators' at equal correctness (${intervalText(c)}, above 0; threshold ${SELF_PREFERENCE_THRESHOLD})`;
  }
  if (c.gap === null) return "no warning: a group has no answers";
  if (!c.enoughAnswers) {
    return `no warning: too few answers (each group needs ${SELF_PREFERENCE_MIN_ANSWERS})`;
  }
  if (c.low === null || c.low <= 0)
    return "no warning: the interval holds 0, so the gap may be noise";
  return `no warning: the gap is below the threshold ${SELF_PREFERENCE_THRESHOLD}`;
}
