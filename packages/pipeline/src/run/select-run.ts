import type { TaskCandidates } from "@assay/core";
import {
  addSelections,
  DEFAULT_PIVOTS,
  emptySelectionTotals,
  type PairJudgment,
  type PairPlanOptions,
  pairPrompts,
  type SelectionTotals,
  type SelectTasksOptions,
  selectionRecordOf,
  selectTasks,
} from "@assay/selection";
import type { ReplaceSelectionsOptions, ScoreLookup, Store } from "@assay/store";

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
          judge === undefined ? undefined : await readPairJudgments(tasks, judge, plan, lookup);
        const selections = selectTasks(tasks, options, judgments);
        totals = addSelections(totals, selections);
        return selections.map(selectionRecordOf);
      };
    },
    options.fetchRows === undefined ? {} : { fetchRows: options.fetchRows },
  );
  return totals;
}

/**
 * The stored judgments of a batch of tasks, by task id: the pair prompts are worked out
 * again from the same pivots the plan drew, and read in one round trip. A prompt with no
 * stored row reads as unscored (null), so its pair counts as missing.
 */
async function readPairJudgments(
  tasks: readonly TaskCandidates[],
  judgeScorer: string,
  plan: PairPlanOptions,
  lookup: ScoreLookup,
): Promise<Map<string, PairJudgment[]>> {
  const prompts = tasks.map(
    (task) =>
      [
        task.taskId,
        pairPrompts(
          task.taskId,
          task.candidates.map((c) => c.candidateIndex),
          plan,
        ),
      ] as const,
  );
  const values = await lookup(
    judgeScorer,
    prompts.flatMap(([, list]) => list.map((p) => p.sampleId)),
  );
  return new Map(
    prompts.map(([taskId, list]) => [
      taskId,
      list.map((p) => ({
        first: p.first,
        second: p.second,
        probability: values.get(p.sampleId) ?? null,
      })),
    ]),
  );
}
