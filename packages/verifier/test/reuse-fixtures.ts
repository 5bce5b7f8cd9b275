import type { Score } from "@assay/core";
import type { VerifierDetail } from "../src/index.js";

/** Prefix reuse must give the no-reuse scores within this. */
export const REUSE_TOLERANCE = 1e-4;

export const STEPS = [
  "Pheromones signal members of the same species.",
  "Allomones benefit the emitter.",
  "The compound repels a predator, so it helps the emitter.",
  "So the answer is C. Allomone.",
];

export const CRITERIA = [
  "The answer is correct.",
  "The steps follow from each other.",
  "It is brief.",
];

/** Every number a user can read in a verifier score: value, per-variant values, progress. */
export function scoreNumbers(score: Score): number[] {
  if (score.status !== "scored") throw new Error(`unscored: ${score.reason}`);
  const detail = score.detail as VerifierDetail;
  return [
    score.value,
    ...detail.criteria.flatMap((c) =>
      c.variants.flatMap((v) => [
        v.value ?? Number.NaN,
        v.raw ?? 0,
        v.mass ?? 0,
        ...(v.distribution ?? []),
      ]),
    ),
    ...(detail.progress ?? []).map((p) => p ?? Number.NaN),
  ];
}

/** Largest |a[i] − b[i]|; Infinity when the lengths differ. */
export function worstDifference(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  return Math.max(0, ...a.map((value, i) => Math.abs(value - (b[i] ?? Number.NaN))));
}
