import { scored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { normalizeSquad } from "../text/normalize.js";
import { bestOverTargets, isNoAnswerList, textTargets } from "../text/targets.js";

export const exact = defineScorer({
  name: "exact",
  pool: "cpu",
  description:
    "SQuAD v1.1 exact match after normalization; best over a list of targets; an empty list is SQuAD 2.0's no answer",
  args: z.strictObject({}),
  create() {
    return (sample) => {
      if (isNoAnswerList(sample.target)) {
        // SQuAD 2.0: right only when the answer, normalized, is empty too.
        return scored(normalizeSquad(sample.answer) === "" ? 1 : 0, { no_answer: true });
      }
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const answer = normalizeSquad(sample.answer);
      return bestOverTargets(targets, (target) => ({
        value: answer === normalizeSquad(target) ? 1 : 0,
      }));
    };
  },
});
