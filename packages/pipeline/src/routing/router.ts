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
  readonly rule: string;
  /** Shared by every sample the rule routes: read, never changed. */
  readonly scorers: readonly ScorerRef[];
}

/** Routing is data: the first matching rule wins, then the default. */
export function createRouter(spec: RunSpec): (sample: Sample) => Route | undefined {
  // Each rule's conditions and route are made once; every sample is then matched and
  // routed without allocating (routing runs once per sample).
  const rules = spec.rules.map((rule) => ({
    route: { rule: rule.name, scorers: rule.scorers } satisfies Route,
    matches: compileWhen(rule.when),
  }));
  const fallback: Route | undefined =
    spec.default === undefined ? undefined : { rule: DEFAULT_RULE, scorers: spec.default.scorers };
  return (sample) => {
    if (sample.scorers !== undefined) return { rule: SAMPLE_RULE, scorers: sample.scorers };
    for (const { route, matches } of rules) {
      if (matches(sample)) return route;
    }
    return fallback;
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
