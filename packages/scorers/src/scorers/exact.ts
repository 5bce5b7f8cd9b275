import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { normalizeSquad } from "../text/normalize.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

export const exact = defineScorer({
  name: "exact",
  pool: "cpu",
  description: "SQuAD v1.1 exact match after normalization; best over a list of targets",
  args: z.strictObject({}),
  create() {
    return (sample) => {
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const answer = normalizeSquad(sample.answer);
      return bestOverTargets(targets, (target) => ({
        value: answer === normalizeSquad(target) ? 1 : 0,
      }));
    };
  },
});
