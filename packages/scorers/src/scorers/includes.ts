import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

const IncludesArgs = z.strictObject({
  /** Compare case-insensitively. Default true. */
  ignore_case: z.boolean().default(true),
});

export const includes = defineScorer({
  name: "includes",
  pool: "cpu",
  description: "The target appears anywhere in the answer (substring)",
  args: IncludesArgs,
  create(args) {
    const fold = (text: string): string => (args.ignore_case ? text.toLowerCase() : text);
    return (sample) => {
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const answer = fold(sample.answer);
      return bestOverTargets(targets, (target) => ({
        value: answer.includes(fold(target)) ? 1 : 0,
      }));
    };
  },
});
