import type { BootstrapOptions } from "../stats/paired-bootstrap.js";
import { stratifiedBootstrap } from "../stats/stratified-bootstrap.js";

/**
 * A verifier that favours answers written by its own model family scores them higher than
 * other generators' answers of the same correctness. The gap averages, over correct and
 * incorrect answers, (same-family mean score − other-family mean score), so a family that
 * simply answers better does not count as preferred.
 */
export const SELF_PREFERENCE_THRESHOLD = 0.05;

/**
 * Answers each of the four groups (family × correctness) needs before the check may warn:
 * with fewer, a group's mean moves by more than the threshold from one sample to the next,
 * and a percentile bootstrap interval comes out narrower than it should.
 */
export const SELF_PREFERENCE_MIN_ANSWERS = 20;

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
  /**
   * Bounds of the gap's 95% interval: a stratified bootstrap over the answers (each group
   * resampled at its own size), seeded so a report prints the same bounds every time. Null
   * when the gap is.
   */
  low: number | null;
  high: number | null;
  /** Every group has at least SELF_PREFERENCE_MIN_ANSWERS answers. */
  enoughAnswers: boolean;
  /**
   * The gap is unlikely to be noise and large enough to matter: enough answers, the
   * interval wholly above 0, and the gap above SELF_PREFERENCE_THRESHOLD.
   */
  warning: boolean;
}

/** One row per (generator model, label, score): how many answers got that verifier score. */
export interface SelfPreferenceCell {
  generator: string;
  label: boolean;
  value: number;
  answers: number;
}

export interface SelfPreferenceOptions {
  threshold?: number;
  minAnswers?: number;
  /** Resamples, seed and confidence of the interval (defaults: 2000, 1, 0.95). */
  bootstrap?: BootstrapOptions;
}

/** The check of one verifier, from its scores on labelled answers (in a stable order). */
export function selfPreference(
  scorer: string,
  family: string,
  cells: readonly SelfPreferenceCell[],
  options: SelfPreferenceOptions = {},
): SelfPreference {
  const needle = family.toLowerCase();
  const scoresOf = (same: boolean, label: boolean): Float64Array =>
    expand(
      cells.filter((c) => c.label === label && c.generator.toLowerCase().includes(needle) === same),
    );
  const groups = {
    sameCorrect: scoresOf(true, true),
    sameIncorrect: scoresOf(true, false),
    otherCorrect: scoresOf(false, true),
    otherIncorrect: scoresOf(false, false),
  };
  const interval = stratifiedBootstrap(
    [
      { values: groups.sameCorrect, weight: 0.5 },
      { values: groups.otherCorrect, weight: -0.5 },
      { values: groups.sameIncorrect, weight: 0.5 },
      { values: groups.otherIncorrect, weight: -0.5 },
    ],
    options.bootstrap,
  );
  const sameFamily = {
    correct: groupMean(groups.sameCorrect),
    incorrect: groupMean(groups.sameIncorrect),
  };
  const otherFamily = {
    correct: groupMean(groups.otherCorrect),
    incorrect: groupMean(groups.otherIncorrect),
  };
  const diff = (a: GroupMean, b: GroupMean) =>
    a.mean === null || b.mean === null ? null : a.mean - b.mean;
  const correct = diff(sameFamily.correct, otherFamily.correct);
  const incorrect = diff(sameFamily.incorrect, otherFamily.incorrect);
  const gap = correct === null || incorrect === null ? null : (correct + incorrect) / 2;
  const minAnswers = options.minAnswers ?? SELF_PREFERENCE_MIN_ANSWERS;
  const enoughAnswers = Object.values(groups).every((g) => g.length >= minAnswers);
  const threshold = options.threshold ?? SELF_PREFERENCE_THRESHOLD;
  return {
    scorer,
    family,
    sameFamily,
    otherFamily,
    gap,
    low: interval?.low ?? null,
    high: interval?.high ?? null,
    enoughAnswers,
    warning:
      enoughAnswers && gap !== null && interval !== null && interval.low > 0 && gap > threshold,
  };
}

/** Each cell's score once per answer, in the cells' order. */
function expand(cells: readonly SelfPreferenceCell[]): Float64Array {
  const values = new Float64Array(cells.reduce((n, c) => n + c.answers, 0));
  let at = 0;
  for (const cell of cells) {
    values.fill(cell.value, at, at + cell.answers);
    at += cell.answers;
  }
  return values;
}

function groupMean(values: Float64Array): GroupMean {
  if (values.length === 0) return { answers: 0, mean: null };
  let sum = 0;
  for (const value of values) sum += value;
  return { answers: values.length, mean: sum / values.length };
}
