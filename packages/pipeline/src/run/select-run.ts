import {
  addSelections,
  emptySelectionTotals,
  type SelectionTotals,
  type SelectTasksOptions,
  selectionRecordOf,
  selectTasks,
} from "@assay/selection";
import type { ReplaceSelectionsOptions, Store } from "@assay/store";

export interface SelectForRunOptions extends SelectTasksOptions, ReplaceSelectionsOptions {
  /** Scorer key whose value ranks candidates (the verifier's). */
  verifierScorer: string;
  /** Deterministic scorer key deciding correctness where a candidate has no label. */
  checkScorer?: string;
}

/**
 * Selects a candidate for every task of the run and stores it (table `selections`,
 * replacing the run's earlier selections). The store reads the candidates in one ordered
 * pass and loads the picks in bulk; selection itself is plain functions over each batch.
 */
export async function selectForRun(
  store: Store,
  runId: string,
  options: SelectForRunOptions,
): Promise<SelectionTotals> {
  const query = {
    verifierScorer: options.verifierScorer,
    ...(options.checkScorer !== undefined && { checkScorer: options.checkScorer }),
  };
  let totals = emptySelectionTotals();
  await store.replaceSelections(
    runId,
    query,
    (tasks) => {
      const selections = selectTasks(tasks, options);
      totals = addSelections(totals, selections);
      return selections.map(selectionRecordOf);
    },
    options.fetchRows === undefined ? {} : { fetchRows: options.fetchRows },
  );
  return totals;
}
