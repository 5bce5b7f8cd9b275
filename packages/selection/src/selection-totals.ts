import { rateOf } from "@assay/core";
import { type Accuracy, accuracyOf } from "./accuracy.js";
import type { TaskSelection } from "./select-task.js";

/** A run's accuracies, added up batch by batch so no run needs all its selections at once. */
export interface SelectionTotals extends Accuracy {
  /** Tasks whose top was an exact tie, broken by the lowest candidate index. */
  ties: number;
}

export function emptySelectionTotals(): SelectionTotals {
  return { ...accuracyOf([]), ties: 0 };
}

/** The totals with a batch of selections added (the batch counts as `accuracyOf` counts it). */
export function addSelections(
  totals: SelectionTotals,
  selections: readonly TaskSelection[],
): SelectionTotals {
  const batch = accuracyOf(selections);
  const sum = (key: "pass1" | "selected" | "oracle") =>
    rateOf(totals[key].count + batch[key].count, totals[key].of + batch[key].of);
  return {
    tasks: totals.tasks + batch.tasks,
    unselected: totals.unselected + batch.unselected,
    pass1: sum("pass1"),
    selected: sum("selected"),
    oracle: sum("oracle"),
    ties: totals.ties + selections.filter((s) => s.tie).length,
  };
}
