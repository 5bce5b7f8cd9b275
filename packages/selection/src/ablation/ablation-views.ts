import type { AblationKind, CriterionValues } from "@assay/core";

/** One re-aggregation of a verifier's C×K values (see `AblationKind`). */
export interface AblationView {
  kind: AblationKind;
  criterion: string | null;
  /** Variants averaged per criterion; 0 for `full` and `criterion` (all of them). */
  variants: number;
}

export const FULL_VIEW: AblationView = { kind: "full", criterion: null, variants: 0 };

/** The shape of a verifier's values: C criteria (by name, in scoring order) and K variants. */
export interface ValueShape {
  criteria: string[];
  variants: number;
}

/**
 * The full mean, each criterion alone and the first 1..K variants; nothing when one
 * criterion and one variant leave nothing to take apart.
 */
export function ablationViews(shape: ValueShape): AblationView[] {
  if (shape.criteria.length <= 1 && shape.variants <= 1) return [];
  const byCriterion: AblationView[] =
    shape.criteria.length > 1
      ? shape.criteria.map((criterion) => ({ kind: "criterion", criterion, variants: 0 }))
      : [];
  const byVariants: AblationView[] =
    shape.variants > 1
      ? Array.from({ length: shape.variants }, (_, k) => ({
          kind: "variants",
          criterion: null,
          variants: k + 1,
        }))
      : [];
  return [FULL_VIEW, ...byCriterion, ...byVariants];
}

/**
 * The criteria and the largest variant count of one candidate's rows; null when it kept no
 * value. A refused call lists its criteria with no variant values: it tells nothing of K.
 */
export function shapeOf(rows: readonly (readonly CriterionValues[])[]): ValueShape | null {
  const kept = rows.flatMap((row) => row.filter((c) => c.values.length > 0));
  if (kept.length === 0) return null;
  const variants = Math.max(...kept.map((c) => c.values.length));
  return { criteria: [...new Set(kept.map((c) => c.criterion))], variants };
}

/**
 * A candidate's score under a view: each stored row re-aggregated the way the verifier
 * aggregates (the plain mean of its values in criterion-major order), then the mean over
 * rows as selection reads them. Null as soon as a needed value is missing or a row's
 * value leaves [0, 1] (what the verifier stores as unscored): a partial mean would pretend
 * to know more than it does. The full view thus gives back exactly the stored score.
 */
export function viewScore(
  rows: readonly (readonly CriterionValues[])[],
  view: AblationView,
): number | null {
  if (rows.length === 0) return null;
  let sum = 0;
  for (const row of rows) {
    const value = rowScore(row, view);
    if (value === null) return null;
    sum += value;
  }
  return sum / rows.length;
}

function rowScore(row: readonly CriterionValues[], view: AblationView): number | null {
  const values = valuesOf(row, view);
  if (values === null || values.length === 0) return null;
  let sum = 0;
  for (const value of values) {
    if (value === null) return null;
    sum += value;
  }
  const mean = sum / values.length;
  return mean >= 0 && mean <= 1 ? mean : null;
}

function valuesOf(row: readonly CriterionValues[], view: AblationView): (number | null)[] | null {
  if (view.kind === "full") return row.flatMap((c) => c.values);
  if (view.kind === "criterion") {
    return row.find((c) => c.criterion === view.criterion)?.values ?? null;
  }
  if (row.some((c) => c.values.length < view.variants)) return null;
  return row.flatMap((c) => c.values.slice(0, view.variants));
}
