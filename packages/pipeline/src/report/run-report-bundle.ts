import type { ReportBundle, RunSummary } from "@assay/core";
import type { Store } from "@assay/store";
import type { BundleOptions } from "@assay/store/reports";
import { selectionAblation } from "./selection-ablation.js";

/** What `assay report` prints, in every format: the run's summary and its report bundle. */
export interface RunReportBundle {
  summary: RunSummary;
  bundle: ReportBundle;
}

/**
 * The summary and the bundle of one run (with the selection ablation re-selected from
 * stored values, no model run), built the one way `assay report` and the tests build it.
 * A pruned run has no stored values left to re-select from, and no ablation.
 */
export async function runReportBundle(
  store: Store,
  runId: string,
  options: BundleOptions = {},
): Promise<RunReportBundle> {
  const summary = await store.runSummary(runId);
  const stored = await store.reportBundle(runId, options);
  const pruned = (await store.getRun(runId))?.prunedAt != null;
  const ablation = pruned ? undefined : await selectionAblation(store, runId);
  return { summary, bundle: ablation === undefined ? stored : { ...stored, ablation } };
}
