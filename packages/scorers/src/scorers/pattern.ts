import { scored, unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { normalizeLoose } from "../text/normalize.js";
import { compileSafeRegex } from "../text/safe-regex.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

const PatternArgs = z
  .strictObject({
    /** The regex (RE2 syntax: no backreferences or lookaround). Required. */
    regex: z.string().min(1),
    /** Regex flags: any of "i", "m", "s". Default none. */
    flags: z.string().optional(),
    /** Capture group compared with the target. Default 1 if the regex has a group, else 0. */
    group: z.int().min(0).optional(),
    /**
     * "target": the captured text equals the target (trimmed, edge punctuation stripped,
     * case-insensitive). "match": 1 if the regex matches at all, else 0. Default "target".
     */
    compare: z.enum(["target", "match"]).default("target"),
  })
  .superRefine((args, ctx) => {
    const compiled = compileSafeRegex(args.regex, args.flags);
    if (!compiled.ok) {
      ctx.addIssue({ code: "custom", path: ["regex"], message: compiled.message });
    } else if (args.group !== undefined && args.group > compiled.groups) {
      const message = `group ${args.group} does not exist; the regex has ${compiled.groups} group(s)`;
      ctx.addIssue({ code: "custom", path: ["group"], message });
    }
  });

export const pattern = defineScorer({
  name: "pattern",
  pool: "cpu",
  description: "A regex (RE2, linear time) matches the answer, or its capture equals the target",
  args: PatternArgs,
  create(args) {
    const compiled = compileSafeRegex(args.regex, args.flags);
    if (!compiled.ok) throw new SyntaxError(compiled.message);
    const { regex } = compiled;
    const group = args.group ?? (compiled.groups > 0 ? 1 : 0);
    return (sample) => {
      const found = regex.exec(sample.answer);
      if (args.compare === "match") return scored(found === null ? 0 : 1);
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      if (found === null) return unscored("unparseable", "the regex does not match the answer");
      const captured = found[group];
      if (captured === undefined) {
        return unscored("unparseable", `group ${group} took no part in the match`);
      }
      const answer = normalizeLoose(captured, true);
      return bestOverTargets(targets, (target) => ({
        value: answer === normalizeLoose(target, true) ? 1 : 0,
        detail: { captured },
      }));
    };
  },
});
