import type { AblationRow, Rate, SelectionAblation } from "@assay/core";
import { formatRate, plural } from "./format.js";

/** A stable id per row (for HTML and tests) and the label a reader sees. */
export function ablationRowId(row: AblationRow): string {
  if (row.kind === "criterion") return `criterion:${row.criterion ?? ""}`;
  if (row.kind === "variants") return `variants:${row.variants}`;
  return "full";
}

export function ablationRowLabel(row: AblationRow, ablation: SelectionAblation): string {
  if (row.kind === "criterion") return `criterion ${row.criterion ?? ""} alone`;
  if (row.kind === "variants") {
    const first = row.variants === 1 ? "first variant" : `first ${row.variants} variants`;
    return ablation.criteria.length > 1 ? `${first}, all criteria` : first;
  }
  return `mean of all ${shapeOf(ablation)} (the run)`;
}

/** How every row picked: the run's method, and its pairwise judge where it had one. */
export function ablationMethod(ablation: SelectionAblation): string {
  return ablation.judge === undefined
    ? ablation.method
    : `${ablation.method} judged by ${ablation.judge}`;
}

/** The heading of the accuracy column: whose pick it measures. */
export function ablationSelectedHeading(ablation: SelectionAblation): string {
  return ablation.judge === undefined
    ? "verifier-selected"
    : `selected (judged by ${ablation.judge})`;
}

/**
 * What a judged run's rows mean, or nothing without a judge: the judge's stored pair
 * judgments pick, as in the run, so only tasks it compared no pair of can move.
 */
export function ablationJudgeNote(ablation: SelectionAblation): string | undefined {
  if (ablation.judge === undefined) return undefined;
  return `Every row re-selects with ${ablation.judge}'s stored pair judgments, as the run did: the re-averaged verifier score decides only tasks where the judge compared no pair.`;
}

/** "3 criteria × 4 variants". */
export function shapeOf(ablation: SelectionAblation): string {
  const c = ablation.criteria.length;
  return `${c} ${c === 1 ? "criterion" : "criteria"} × ${plural(ablation.variants, "variant")}`;
}

export function ablationRateCell(rate: Rate): string {
  return rate.of === 0 ? "n/a" : `${formatRate(rate.rate)} (${rate.count}/${rate.of})`;
}

/** The change against the full mean in percentage points, e.g. "+3.3 pp". */
export function pointsAgainstFull(row: AblationRow, full: AblationRow | undefined): string {
  if (row.kind === "full" || full === undefined) return "";
  const a = row.selected.rate;
  const b = full.selected.rate;
  if (a === null || b === null) return "n/a";
  const points = (a - b) * 100;
  return `${points > 0 ? "+" : points < 0 ? "−" : "±"}${Math.abs(points).toFixed(1)} pp`;
}
