import type { ReportBundle, RunSummary } from "@assay/core";
import { totalsByScorer } from "./aggregate.js";

/**
 * The summary JSON of `renderSummaryJson` (same keys, so existing readers keep working)
 * plus the run report, the compared run, the trend, the early-stop candidates, the paired
 * differences against the compared run, the slices by a metadata field and the selection
 * ablation by criterion and variant.
 */
export function renderReportJson(summary: RunSummary, bundle: ReportBundle): string {
  return JSON.stringify(
    {
      ...summary,
      // The bundle's counts add what the billed-but-not-joined tokens cost at the prices.
      ...(bundle.answers !== undefined && { answers: bundle.answers }),
      scorers: totalsByScorer(summary),
      report: bundle.report,
      compare: bundle.compare,
      trend: bundle.trend,
      earlyStops: bundle.earlyStops ?? null,
      comparison: bundle.comparison ?? null,
      slices: bundle.slices ?? null,
      ablation: bundle.ablation ?? null,
    },
    null,
    2,
  );
}
