import type { RunSummary } from "@assay/core";
import { totalsByScorer } from "./aggregate.js";

/** The run summary as JSON: the raw groups plus the per-scorer totals. */
export function renderSummaryJson(summary: RunSummary): string {
  return JSON.stringify({ ...summary, scorers: totalsByScorer(summary) }, null, 2);
}
