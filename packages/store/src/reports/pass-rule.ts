import { rateOf, type ScorerPass } from "@assay/core";

/**
 * The pass threshold of score row `s` of run `r` (SQL): the scorer's own, else the run's.
 * The analyst views (migrations/analyst-views.sql) spell the same expression.
 */
export const PASS_THRESHOLD =
  "coalesce((r.pass_thresholds ->> s.scorer)::float8, r.pass_threshold)";

/** One scorer's results of a run under its pass rule, as a rollup stores them. */
export interface ScorerPassCounts {
  scorer: string;
  threshold: number;
  scored: number;
  unscored: number;
  passed: number;
}

/** How the rule reads, as the views and the report write it. */
export function passRuleText(threshold: number): string {
  return `value >= ${threshold}`;
}

export function scorerPassOf(counts: ScorerPassCounts): ScorerPass {
  return {
    scorer: counts.scorer,
    rule: passRuleText(counts.threshold),
    threshold: counts.threshold,
    scored: counts.scored,
    unscored: counts.unscored,
    passed: rateOf(counts.passed, counts.scored),
  };
}
