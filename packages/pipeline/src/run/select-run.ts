import type { TaskCandidates } from "@assay/core";
import {
  addSelections,
  DEFAULT_PIVOTS,
  emptySelectionTotals,
  type SelectionTotals,
  type SelectTasksOptions,
  selectionRecordOf,
  selectTasks,
} from "@assay/selection";
import type { ReplaceSelectionsOptions, Store } from "@assay/store";
import { type PlannedTask, readPairJudgments } from "./read-pair-judgments.js";

export interface SelectForRunOptions extends SelectTasksOptions, ReplaceSelectionsOptions {
  /** Scorer key whose value ranks candidates (the verifier's). */
  verifierScorer: string;
  /** Deterministic scorer key deciding correctness where a candidate has no label. */
  checkScorer?: string;
  /** Scorer key of a pairwise judge whose stored pair judgments rank the tournament. */
  judgeScorer?: string;
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
  const judge = options.judgeScorer;
  const plan = { k: options.k ?? DEFAULT_PIVOTS, seed: options.seed ?? 0 };
  let totals = emptySelectionTotals();
  await store.replaceSelections(
    runId,
    query,
    () => {
      // A pass the store undoes is counted again from nothing.
      totals = emptySelectionTotals();
      return async (tasks, lookup) => {
        const judgments =
          judge === undefined
            ? undefined
            : await readPairJudgments(tasks.map(plannedTask), judge, plan, lookup);
        const selections = selectTasks(tasks, options, judgments);
        totals = addSelections(totals, selections);
        return selections.map(selectionRecordOf);
      };
    },
    options.fetchRows === undefined ? {} : { fetchRows: options.fetchRows },
  );
  return totals;
}

function plannedTask(task: TaskCandidates): PlannedTask {
  return { taskId: task.taskId, candidateIndices: task.candidates.map((c) => c.candidateIndex) };
}
