import {
  DEFAULT_RULE,
  type RoutingRule,
  type RunSpec,
  SAMPLE_RULE,
  type Sample,
  type ScorerRef,
} from "@assay/core";
import { sampleField } from "./sample-field.js";

export interface Route {
  /** Name of the rule that routed the sample: a rule's name, "sample" or "default". */
  rule: string;
  scorers: ScorerRef[];
}

/** Routing is data: the first matching rule wins, then the default. */
export function createRouter(spec: RunSpec): (sample: Sample) => Route | undefined {
  return (sample) => {
    if (sample.scorers !== undefined) return { rule: SAMPLE_RULE, scorers: sample.scorers };
    const rule = spec.rules.find((candidate) => matches(candidate, sample));
    if (rule !== undefined) return { rule: rule.name, scorers: rule.scorers };
    if (spec.default !== undefined) return { rule: DEFAULT_RULE, scorers: spec.default.scorers };
    return undefined;
  };
}

function matches(rule: RoutingRule, sample: Sample): boolean {
  return Object.entries(rule.when).every(([path, expected]) => {
    const actual = sampleField(sample, path) ?? null;
    return Array.isArray(expected) ? expected.includes(actual as never) : actual === expected;
  });
}
