import {
  DEFAULT_RULE,
  type RoutingRule,
  type RunSpec,
  SAMPLE_RULE,
  type Sample,
  type ScorerRef,
} from "@assay/core";
import { fieldReader } from "./sample-field.js";

export interface Route {
  /** Name of the rule that routed the sample: a rule's name, "sample" or "default". */
  rule: string;
  scorers: ScorerRef[];
}

/** Routing is data: the first matching rule wins, then the default. */
export function createRouter(spec: RunSpec): (sample: Sample) => Route | undefined {
  // Each rule's conditions are compiled once; every sample is then matched without
  // allocating (routing runs once per sample).
  const rules = spec.rules.map((rule) => ({ rule, matches: compileWhen(rule.when) }));
  return (sample) => {
    if (sample.scorers !== undefined) return { rule: SAMPLE_RULE, scorers: sample.scorers };
    for (const { rule, matches } of rules) {
      if (matches(sample)) return { rule: rule.name, scorers: rule.scorers };
    }
    if (spec.default !== undefined) return { rule: DEFAULT_RULE, scorers: spec.default.scorers };
    return undefined;
  };
}

function compileWhen(when: RoutingRule["when"]): (sample: Sample) => boolean {
  const conditions = Object.entries(when).map(([path, expected]) => ({
    read: fieldReader(path),
    expected,
  }));
  return (sample) => {
    for (const { read, expected } of conditions) {
      const actual = read(sample) ?? null;
      const met = Array.isArray(expected)
        ? expected.includes(actual as never)
        : actual === expected;
      if (!met) return false;
    }
    return true;
  };
}
