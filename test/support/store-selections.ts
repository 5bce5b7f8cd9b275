import type { SelectionRecord } from "@assay/core";
import type { Store } from "@assay/store";

/**
 * Stores these selections through the store's own selection pass, as a rerun of selection
 * that picked them would: they replace the run's selections (and drop its rollups). A task
 * gets its record when the run has samples of it.
 */
export async function storeSelections(
  store: Store,
  runId: string,
  records: readonly SelectionRecord[],
): Promise<number> {
  const byTask = new Map(records.map((record) => [record.taskId, record]));
  return store.replaceSelections(
    runId,
    { verifierScorer: "" },
    () => (tasks) =>
      tasks.flatMap((task) => {
        const record = byTask.get(task.taskId);
        return record === undefined ? [] : [record];
      }),
  );
}
