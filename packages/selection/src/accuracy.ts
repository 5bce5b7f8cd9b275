import { type Rate, rateOf } from "@assay/core";
import type { TaskSelection } from "./select-task.js";

export interface Accuracy {
  tasks: number;
  /** First candidate correct. */
  pass1: Rate;
  /** The selected candidate correct. */
  selected: Rate;
  /** Any candidate correct: the ceiling for selection. */
  oracle: Rate;
}

/** The three accuracies of DESIGN.md §7; unknown correctness is left out of each rate. */
export function accuracyOf(selections: readonly TaskSelection[]): Accuracy {
  const share = (pick: (s: TaskSelection) => boolean | null): Rate => {
    const known = selections.map(pick).filter((v): v is boolean => v !== null);
    return rateOf(known.filter(Boolean).length, known.length);
  };
  return {
    tasks: selections.length,
    pass1: share((s) => s.firstCorrect),
    selected: share((s) => s.selectedCorrect),
    oracle: share((s) => s.anyCorrect),
  };
}
