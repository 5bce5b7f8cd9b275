import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { trimPunctuation } from "../text/normalize.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

const MatchArgs = z.strictObject({
  /**
   * Where the target must appear in the trimmed answer: at the start, at the end, anywhere,
   * or as the whole answer. Default "end" (answers tend to finish with the verdict).
   */
  location: z.enum(["begin", "end", "any", "exact"]).default("end"),
  /** Compare case-insensitively. Default true. */
  ignore_case: z.boolean().default(true),
  /**
   * Strip punctuation at both ends of answer and target first, so "It is Paris." matches
   * "Paris". Default true.
   */
  ignore_punctuation: z.boolean().default(true),
});
export type MatchArgs = z.output<typeof MatchArgs>;

export const match = defineScorer({
  name: "match",
  pool: "cpu",
  description: "The target appears at the start, end, anywhere in, or as the whole answer",
  args: MatchArgs,
  create(args) {
    const prepare = (text: string): string => {
      const trimmed = args.ignore_punctuation ? trimPunctuation(text) : text.trim();
      return args.ignore_case ? trimmed.toLowerCase() : trimmed;
    };
    return (sample) => {
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const answer = prepare(sample.answer);
      return bestOverTargets(targets, (target) => ({
        value: isAt(answer, prepare(target), args.location) ? 1 : 0,
      }));
    };
  },
});

function isAt(answer: string, target: string, location: MatchArgs["location"]): boolean {
  switch (location) {
    case "begin":
      return answer.startsWith(target);
    case "end":
      return answer.endsWith(target);
    case "any":
      return answer.includes(target);
    case "exact":
      return answer === target;
  }
}
