import { type Rate, rateOf } from "@assay/core";
import type { TaskSelection } from "./select-task.js";

export interface Accuracy {
  /** Tasks selection saw. */
  tasks: number;
  /**
   * Tasks with no scored candidate (none scored by the verifier, and under a judged
   * tournament no pair judged): nothing selected, so unsolved.
   */
  unselected: number;
  /** First candidate correct. */
  pass1: Rate;
  /** The selected candidate correct; a task with nothing selected is unsolved. */
  selected: Rate;
  /** Any candidate correct: the ceiling for selection. */
  oracle: Rate;
}

/** What the accuracies read of a task's selection (a stored `SelectionRecord` has it too). */
export type AccuracyInput = Pick<
  TaskSelection,
  "selectedIndex" | "selectedCorrect" | "firstCorrect" | "anyCorrect"
>;

/**
 * The three accuracies (docs/architecture.md, "Selection"), over the same tasks: those whose
 * correctness is known for all three. A task with no scored candidate stays in (selected counts it
 * unsolved); a task whose first, picked or any-correct answer is unknown is left out of all
 * three, never counted as a failure of one of them only.
 */
export function accuracyOf(selections: readonly AccuracyInput[]): Accuracy {
  const counted = selections.filter(countsForAccuracy);
  const share = (pick: (s: AccuracyInput) => boolean | null): Rate =>
    rateOf(counted.filter((s) => pick(s) === true).length, counted.length);
  return {
    tasks: selections.length,
    unselected: selections.filter((s) => s.selectedIndex === null).length,
    pass1: share((s) => s.firstCorrect),
    selected: share((s) => s.selectedCorrect),
    oracle: share((s) => s.anyCorrect),
  };
}

/** Whether a task's correctness is known for pass@1, the pick and the oracle alike. */
function countsForAccuracy(selection: AccuracyInput): boolean {
  return (
    selection.firstCorrect !== null &&
    selection.selectedCorrect !== null &&
    selection.anyCorrect !== null
  );
}
