import { type ScoredScore, scored, type Target, type UnscoredScore, unscored } from "@assay/core";

/**
 * The target as a list of strings for text scorers. A list means "any of these is right"
 * (SQuAD keeps several ground truths per question); numbers and booleans become text.
 * An empty target would match every answer, so it is refused rather than scored; in a list,
 * empty entries are skipped (a blank ground truth names no answer) and only a list with
 * nothing else is refused.
 */
export function textTargets(target: Target | undefined): string[] | UnscoredScore {
  if (target === undefined) return unscored("invalid_target", "this scorer needs a `target`");
  if (typeof target === "object" && !Array.isArray(target)) {
    return unscored("invalid_target", "expected a string or a list of strings, got an object");
  }
  if (!Array.isArray(target)) {
    const text = String(target);
    return isBlank(text) ? unscored("invalid_target", "the target is empty") : [text];
  }
  // The usual list, only text that names something, is used as it is (callers only read
  // it): no copies per sample.
  if (target.length > 0 && target.every((item) => typeof item === "string" && !isBlank(item))) {
    return target as string[];
  }
  const texts = withoutBlankEntries(target).map(String);
  if (texts.length === 0) return unscored("invalid_target", emptyListMessage(target));
  return texts;
}

/**
 * SQuAD 2.0's unanswerable question: a target list with no answer in it (`answers.text:
 * []`, or blank entries only). Its official script then takes "" as the only gold, so the
 * one right answer is none at all; `exact` and `f1` score it so, other scorers refuse it.
 */
export function isNoAnswerList(target: Target | undefined): boolean {
  return Array.isArray(target) && withoutBlankEntries(target).length === 0;
}

/** The entries of a target list that name something: blank strings are left out. */
export function withoutBlankEntries<T>(list: readonly T[]): T[] {
  return list.filter((item) => !(typeof item === "string" && isBlank(item)));
}

/** Why a target list with no usable entry is refused. */
export function emptyListMessage(list: Target): string {
  const hasEntries = Array.isArray(list) && list.length > 0;
  return hasEntries ? "every entry of the target list is empty" : "the target list is empty";
}

/** Nothing but whitespace (what `trim` removes: JavaScript's `\s`), without a trimmed copy. */
function isBlank(text: string): boolean {
  return !NOT_WHITESPACE.test(text);
}

const NOT_WHITESPACE = /\S/;

export interface TargetResult {
  value: number;
  detail?: Record<string, unknown>;
}

/** Scores against each target and keeps the best, recording which target it was. */
export function bestOverTargets(
  targets: readonly string[],
  scoreOne: (target: string) => TargetResult,
): ScoredScore {
  let best: TargetResult | undefined;
  let bestTarget = "";
  for (const target of targets) {
    const result = scoreOne(target);
    if (best === undefined || result.value > best.value) {
      best = result;
      bestTarget = target;
    }
    if (best.value === 1) break;
  }
  if (best === undefined) throw new RangeError("bestOverTargets needs at least one target");
  return scored(best.value, { ...best.detail, target: bestTarget });
}
