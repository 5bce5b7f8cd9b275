import type { Score } from "@assay/core";
import type { VerifierDetail } from "@assay/verifier";

/** Every number a verifier score carries: its value, each variant's, each progress step's. */
function numbers(score: Score): number[] {
  const detail = score.detail as VerifierDetail | undefined;
  return [
    score.status === "scored" ? score.value : Number.NaN,
    ...(detail?.criteria ?? []).flatMap((c) => c.variants.map((v) => v.value ?? Number.NaN)),
    ...(detail?.progress ?? []).map((p) => p ?? Number.NaN),
  ];
}

/**
 * The largest gap between two runs' scores of the same samples, over every number they
 * carry. Different shapes, or a number on one side only, count as an infinite gap.
 */
export function maxScoreDifference(a: readonly Score[], b: readonly Score[]): number {
  let worst = a.length === b.length ? 0 : Number.POSITIVE_INFINITY;
  a.forEach((score, i) => {
    const x = numbers(score);
    const y = b[i] === undefined ? [] : numbers(b[i]);
    if (x.length !== y.length) worst = Number.POSITIVE_INFINITY;
    x.forEach((value, j) => {
      const other = y[j] ?? Number.NaN;
      // Both unscored (NaN) at the same place agree; one NaN alone does not.
      const gap = Number.isNaN(value) && Number.isNaN(other) ? 0 : Math.abs(value - other);
      worst = Math.max(worst, Number.isNaN(gap) ? Number.POSITIVE_INFINITY : gap);
    });
  });
  return worst;
}
