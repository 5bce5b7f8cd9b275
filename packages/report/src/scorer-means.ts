import type { ScorerMean } from "@assay/core";
import { formatRate } from "./format.js";

/** "pass rate" for a scorer that only passes or fails, else "mean". */
export function scorerMeanKind(m: ScorerMean): string {
  return m.passes === null ? "mean" : "pass rate";
}

/** The figure alone: "62.5%" for a pass rate, "0.734" for a mean. */
export function scorerMeanValue(m: ScorerMean): string {
  return m.passes === null ? m.mean.toFixed(3) : formatRate(m.mean);
}

/** The figure with what it stands on: "62.5% (5/8)" or "0.734 (n=8)". */
export function formatScorerMean(m: ScorerMean): string {
  return m.passes === null
    ? `${scorerMeanValue(m)} (n=${m.scored})`
    : `${scorerMeanValue(m)} (${m.passes}/${m.scored})`;
}

/** "95% 30.6%–86.3%" or "95% 0.612–0.856". */
export function scorerMeanInterval(m: ScorerMean): string {
  const f = (v: number) => (m.passes === null ? v.toFixed(3) : formatRate(v));
  return `95% ${f(m.low)}–${f(m.high)}`;
}
