import { scored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { squadTokens } from "../text/normalize.js";
import {
  bestOverTargets,
  isNoAnswerList,
  type TargetResult,
  textTargets,
} from "../text/targets.js";

export const f1 = defineScorer({
  name: "f1",
  pool: "cpu",
  description:
    "SQuAD v1.1 token F1 after normalization; best over a list of targets; an empty list is SQuAD 2.0's no answer",
  args: z.strictObject({}),
  create() {
    return (sample) => {
      if (isNoAnswerList(sample.target)) {
        // SQuAD 2.0 `compute_f1`: with no gold tokens, 1 exactly when the answer has none.
        return scored(squadTokens(sample.answer).length === 0 ? 1 : 0, { no_answer: true });
      }
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const answerTokens = squadTokens(sample.answer);
      return bestOverTargets(targets, (target) => tokenF1(answerTokens, squadTokens(target)));
    };
  },
});

/**
 * evaluate-v1.1.py `f1_score`: overlap of the token multisets. With no common token the
 * score is 0, which includes an empty answer and a target that normalizes to nothing
 * (e.g. "The."); the official script has no special case for them, and neither do we.
 */
export function tokenF1(answer: readonly string[], target: readonly string[]): TargetResult {
  const common = commonCount(answer, target);
  if (common === 0) return { value: 0, detail: { precision: 0, recall: 0 } };
  const precision = common / answer.length;
  const recall = common / target.length;
  return { value: (2 * precision * recall) / (precision + recall), detail: { precision, recall } };
}

/** Size of the multiset intersection (Python's `Counter(a) & Counter(b)`). */
function commonCount(a: readonly string[], b: readonly string[]): number {
  if (a.length * b.length > PAIRWISE_LIMIT) return commonCountByTally(a, b);
  // Short texts (most answers and targets): each token of `a` takes the first unused equal
  // token of `b`. Comparing every pair costs less than a Map's hashing and entries.
  taken.length = 0;
  for (let index = 0; index < b.length; index += 1) taken.push(false);
  let common = 0;
  for (const token of a) {
    for (let index = 0; index < b.length; index += 1) {
      if (taken[index] === false && b[index] === token) {
        taken[index] = true;
        common++;
        break;
      }
    }
  }
  return common;
}

/** Pairs of tokens worth comparing one by one before a tally of `b` costs less. */
const PAIRWISE_LIMIT = 1024;

/** Which tokens of `b` an earlier token of `a` matched; scoring is synchronous, so one serves. */
const taken: boolean[] = [];

function commonCountByTally(a: readonly string[], b: readonly string[]): number {
  const remaining = new Map<string, number>();
  for (const token of b) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of a) {
    const left = remaining.get(token) ?? 0;
    if (left > 0) {
      remaining.set(token, left - 1);
      common++;
    }
  }
  return common;
}
