import { choosePivots, pairSampleId, pivotPairs } from "./pivot-pairs.js";

/** One prompt of a pairwise judge: is `first` (shown as A) better than `second`? */
export interface PairPrompt {
  /** The sample id its judgment is stored under. */
  sampleId: string;
  first: number;
  second: number;
}

export interface PairPlanOptions {
  k: number;
  seed: number;
}

/**
 * Every prompt a task's judged tournament needs: its k·N − k(k+1)/2 pairs, each in both
 * orders. Planning (which enqueues them as jobs) and selection (which reads their stored
 * values back) both call this, so they agree on the pivots and the ids.
 */
export function pairPrompts(
  taskId: string,
  indices: readonly number[],
  options: PairPlanOptions,
): PairPrompt[] {
  // Distinct: tasks built from several one-answer lines share candidate index 0.
  const sorted = [...new Set(indices)].sort((x, y) => x - y);
  if (sorted.length < 2) return [];
  const pivots = choosePivots(sorted, options.k, options.seed, taskId);
  return pivotPairs(sorted, pivots).flatMap(({ a, b }) => [
    { sampleId: pairSampleId(taskId, a, b), first: a, second: b },
    { sampleId: pairSampleId(taskId, b, a), first: b, second: a },
  ]);
}
