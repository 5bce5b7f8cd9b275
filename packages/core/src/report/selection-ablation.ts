import type { Rate } from "./rate.js";

/**
 * Which part of a verifier's C criteria × K prompt variants a row re-aggregates:
 * - `full`: the mean over every criterion and variant (the score the run selected with);
 * - `criterion`: one criterion alone, mean over its K variants;
 * - `variants`: the first `variants` prompt variants of every criterion.
 */
export type AblationKind = "full" | "criterion" | "variants";

/**
 * Selection re-run on one re-aggregation of the stored per-criterion, per-variant values,
 * by the run's own method (with a judge: its stored pair judgments, the re-aggregated
 * score deciding only tasks where the judge compared no pair).
 */
export interface AblationRow {
  kind: AblationKind;
  /** The criterion of a `criterion` row; null otherwise. */
  criterion: string | null;
  /** Variants averaged per criterion: k for a `variants` row, K for the others. */
  variants: number;
  /** Share of tasks whose pick under this re-aggregation is correct (same tasks rule as the run's). */
  selected: Rate;
  /** Tasks where no candidate had a value under this re-aggregation (unsolved). */
  unselected: number;
  /** Tasks whose top was an exact tie, broken by the lowest candidate index. */
  ties: number;
}

/**
 * Selected accuracy by criterion alone and by the first 1..K variants, next to the full mean,
 * computed from stored scores without running the model again. Present only for runs whose
 * selection verifier used more than one criterion or more than one variant.
 */
export interface SelectionAblation {
  /** The scorer key selection ranked by. */
  scorer: string;
  /** The run's selection method; every row re-selects by it. */
  method: string;
  /**
   * The scorer key of the run's pairwise judge, when its tournament was judged: every row
   * then re-selects with the judge's stored pair judgments, as the run did. Absent otherwise.
   */
  judge?: string;
  /** The C criteria, in the order the verifier scored them. */
  criteria: string[];
  /** K: the most prompt variants any criterion was scored with. */
  variants: number;
  /** The full mean first, then each criterion alone, then the first 1..K variants. */
  rows: AblationRow[];
}
