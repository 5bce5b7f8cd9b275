import { type SelectionSpec, scorerKey } from "@assay/core";
import type { SelectionTotals } from "@assay/selection";
import type { RunRecord, SelectionStats, Store } from "@assay/store";
import { selectForRun } from "./select-run.js";
import { storedSelectionSpec } from "./stored-selection-spec.js";

export interface CompleteRunOptions {
  /**
   * While another process completes the run: wait for it and report what it stored
   * (true), or leave the run to it at once (false, the default: `assay status` and the
   * workers, which have other things to do).
   */
  wait?: boolean;
}

/** What became of a call to `completeRun`. */
export type RunCompletion =
  /** Not every planned result is stored, or the plan is not known yet: nothing was done. */
  | { state: "incomplete"; planned: number | null; stored: number }
  /** Another process is completing the run now (only when not told to wait). */
  | { state: "busy" }
  /** The run was abandoned (`abandonRun`): it is never completed. */
  | { state: "abandoned"; abandonedAt: Date }
  | {
      state: "completed";
      /** True when this call did the work; false when an earlier one had. */
      here: boolean;
      /** The selection's accuracies, when the run's spec asks for selection. */
      selection: SelectionTotals | undefined;
    };

/**
 * Completes a run whose planned results are all stored: the one protocol every path that
 * finishes a run goes through (`assay run`, `assay produce --wait`, `assay retry --wait`,
 * `assay status`, and the worker that stores the last result). The run is marked finished
 * (once), the planner's statistics of what it wrote are refreshed, one candidate per task
 * is selected and stored when the run's stored spec asks for selection, and the run's
 * report figures are rolled up, in that order: a run with rollups is a completed run.
 *
 * Exactly one process does the work however many find the run complete at once: each
 * first takes the run's completion lock (`Store.lockRunCompletion`), then looks again
 * whether the run is complete and not completed yet. A completer that dies leaves the run
 * finished without rollups, which the next call completes. A resumed or retried run drops
 * its rollups (`produce`), so it is completed anew, from everything stored by then.
 */
export async function completeRun(
  store: Store,
  runId: string,
  options: CompleteRunOptions = {},
): Promise<RunCompletion> {
  const lock = await store.lockRunCompletion(runId, { wait: options.wait === true });
  if (lock === null) return { state: "busy" };
  try {
    const run = await store.getRun(runId);
    if (run === undefined) throw new Error(`completeRun: no run ${runId}`);
    if (run.abandonedAt !== null) return { state: "abandoned", abandonedAt: run.abandonedAt };
    const selection = storedSelectionSpec(run);
    // Only runs with rollups are pruned, and their raw rows are gone: nothing to redo.
    if (run.prunedAt !== null) return { state: "completed", here: false, selection: undefined };
    const planned = run.plannedResults;
    const stored = await store.countResults(runId);
    if (planned === null || stored < planned) return { state: "incomplete", planned, stored };
    if (await isCompleted(store, run)) {
      return {
        state: "completed",
        here: false,
        selection: await storedTotals(store, runId, selection),
      };
    }
    return { state: "completed", here: true, selection: await complete(store, runId, selection) };
  } finally {
    await lock.release();
  }
}

/**
 * Undoes what completion relies on when a run is produced again (a resume, a retry): the
 * plan, which the new attempt records anew once it has read the dataset, and the rollups,
 * which the completion after it rewrites. Under the completion lock, so that no completer
 * takes the old plan for the new attempt's.
 */
export async function reopenRunPlan(store: Store, runId: string): Promise<void> {
  const lock = await store.lockRunCompletion(runId, { wait: true });
  try {
    await store.clearPlan(runId);
    await store.dropRollups(runId);
  } finally {
    await lock?.release();
  }
}

/** What became of a call to `abandonRun`. */
export type RunAbandonment =
  | { state: "abandoned"; here: boolean; abandonedAt: Date }
  /** Completed (rollups written) or pruned: nothing to give up; prune it instead. */
  | { state: "completed" };

/**
 * Marks a run that will never finish (its producer gone, its dataset lost) as abandoned,
 * under the completion lock, so that no completer is half-way through it: from then on
 * `completeRun` refuses it, reports and trends show it as abandoned, and `assay prune`
 * drops its raw rows. A completed run is left as it is.
 */
export async function abandonRun(store: Store, runId: string): Promise<RunAbandonment> {
  const lock = await store.lockRunCompletion(runId, { wait: true });
  try {
    const run = await store.getRun(runId);
    if (run === undefined) throw new Error(`abandonRun: no run ${runId}`);
    if (run.abandonedAt !== null) {
      return { state: "abandoned", here: false, abandonedAt: run.abandonedAt };
    }
    if (run.prunedAt !== null || (await isCompleted(store, run))) return { state: "completed" };
    const here = await store.abandonRun(runId);
    const marked = await store.getRun(runId);
    return { state: "abandoned", here, abandonedAt: marked?.abandonedAt ?? new Date() };
  } finally {
    await lock?.release();
  }
}

async function isCompleted(store: Store, run: RunRecord): Promise<boolean> {
  return run.finishedAt !== null && (await store.hasRollups(run.id));
}

/** The work itself, in the order that makes rollups the mark of a completed run. */
async function complete(
  store: Store,
  runId: string,
  selection: SelectionSpec | undefined,
): Promise<SelectionTotals | undefined> {
  await store.finishRun(runId);
  await store.refreshPlannerStatistics("written", runId);
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

/** The accuracies of a run completed earlier, counted from its stored selections. */
async function storedTotals(
  store: Store,
  runId: string,
  selection: SelectionSpec | undefined,
): Promise<SelectionTotals | undefined> {
  if (selection === undefined) return undefined;
  const stats = await store.selectionStats(runId);
  return stats === undefined ? undefined : selectionTotalsOf(stats);
}

/** The totals `selectForRun` adds up, as the store counts them from the stored rows. */
export function selectionTotalsOf(stats: SelectionStats): SelectionTotals {
  return {
    tasks: stats.selectedTasks + stats.unselected,
    unselected: stats.unselected,
    pass1: stats.pass1,
    selected: stats.selected,
    oracle: stats.oracle,
    ties: stats.tie.count,
  };
}
