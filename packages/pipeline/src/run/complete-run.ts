import { type RunSpec, scorerKey } from "@assay/core";
import { type SelectForRunResult, selectForRun } from "@assay/selection";
import type { Store } from "@assay/store";

/**
 * What happens once every planned result is stored: the run is marked finished (once) and,
 * when the spec asks for it, one candidate per task is selected and stored.
 */
export async function completeRun(
  store: Store,
  runId: string,
  spec: RunSpec,
): Promise<SelectForRunResult | undefined> {
  await store.finishRun(runId);
  const selection = spec.selection;
  if (selection === undefined) return undefined;
  return selectForRun(store, runId, {
    verifierScorer: selection.verifier,
    ...(selection.check !== undefined && { checkScorer: selection.check }),
    threshold: selection.threshold,
    method: selection.method,
    k: selection.k,
    seed: selection.seed,
    ...(selection.judge !== undefined && { judgeScorer: scorerKey(selection.judge) }),
  });
}
