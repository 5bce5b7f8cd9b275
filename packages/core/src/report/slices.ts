import type { Rate } from "./rate.js";

export interface SliceScorer {
  scorer: string;
  results: number;
  scored: number;
  /** Mean over scored results; null when none. */
  mean: number | null;
}

export interface SliceCost {
  currency: string;
  /** Null when some usage of the slice could not be priced. */
  total: number | null;
  solvedTasks: number;
  perSolvedTask: number | null;
  perSample: number | null;
  warnings: string[];
}

/**
 * The headline figures of the samples and tasks whose metadata field has one value. A
 * sample counts under its own value; a task (selection, accuracy) under the value of its
 * lowest-index candidate.
 */
export interface SliceFigures {
  /** The field's value as text; null for samples without the field. */
  value: string | null;
  tasks: number;
  samples: number;
  pass1: Rate;
  selected: Rate;
  oracle: Rate;
  /** Tasks with no scored candidate, so nothing was picked (counted unsolved). */
  unselected: number;
  tie: Rate;
  truncation: Rate;
  unscored: Rate;
  scorers: SliceScorer[];
  /**
   * The slice's solved tasks, decided as the run's (`RunReport.solved`): by the pick with
   * selection, else by the spec's pass rule on the task's first candidate.
   */
  solved: SliceSolved;
  /** Null without a price table. */
  cost: SliceCost | null;
}

/** Solved tasks of one slice, and what decided them. */
export interface SliceSolved {
  decidedBy: "selection" | "pass_rule";
  solved: number;
}

/** A run's headline figures sliced by one metadata field (`--by metadata.<key>`). */
export interface SliceReport {
  /** As given, e.g. "metadata.kind". */
  by: string;
  slices: SliceFigures[];
  /**
   * Why the figures were computed from the run's raw rows rather than its slice rollups
   * (e.g. "field not declared in fields.metadata"); absent when read from the rollups. The
   * figures are the same either way; only the cost of the report differs.
   */
  fromRawRows?: string;
}
