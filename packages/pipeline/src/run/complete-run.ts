import type { RunSpec } from "@assay/core";
import type { SelectionTotals } from "@assay/selection";
import type { Store } from "@assay/store";
import { selectForRun } from "./select-run.js";

/**
 * What happens once every planned result is stored: the run is marked finished (once) and,
 * when the spec asks for it, one candidate per task is selected and stored.
 */
export async function completeRun(
  store: Store,
  runId: string,
  spec: RunSpec,
): Promise<SelectionTotals | undefined> {
  await store.finishRun(runId);
  const selection = spec.selection;
  if (selection === undefined) return undefined;
  return selectForRun(store, runId, {
    verifierScorer: selection.verifier,
    ...(selection.check !== undefined && { checkScorer: selection.check }),
    threshold: selection.threshold,
    method: selection.method,
    k: selection.k,
  });
}
