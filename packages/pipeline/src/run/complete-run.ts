import { type RunSpec, scorerKey } from "@assay/core";
import type { SelectionTotals } from "@assay/selection";
import type { Store } from "@assay/store";
import { selectForRun } from "./select-run.js";

/**
 * What happens once every planned result is stored: the run is marked finished (once),
 * when the spec asks for it one candidate per task is selected and stored, and the run's
 * report figures are rolled up. A resumed or retried run comes here again when it
 * completes, so its selection and rollups are rewritten from everything stored by then.
 * The planner's statistics of what the run wrote are refreshed first, so selection, the
 * rollups and later reports are planned for the tables' real size.
 */
export async function completeRun(
  store: Store,
  runId: string,
  spec: RunSpec,
): Promise<SelectionTotals | undefined> {
  await store.finishRun(runId);
  await store.refreshPlannerStatistics("written", runId);
  const selection = spec.selection;
  const selected =
    selection === undefined
      ? undefined
      : await selectForRun(store, runId, {
          verifierScorer: selection.verifier,
          ...(selection.check !== undefined && { checkScorer: selection.check }),
          threshold: selection.threshold,
          method: selection.method,
          k: selection.k,
          seed: selection.seed,
          ...(selection.judge !== undefined && { judgeScorer: scorerKey(selection.judge) }),
        });
  await store.writeRollups(runId);
  return selected;
}
