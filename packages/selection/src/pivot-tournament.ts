import type { CompareFn, Comparison } from "./preference.js";
import { isTopTied, rankByValue } from "./tie-break.js";

export interface PivotTournamentOptions {
  /** Pivots every candidate is compared with. Default 3; capped at N. */
  k?: number;
}

export interface PivotTournament {
  /** Candidate indices, best first. */
  ranking: number[];
  /** Mean P(candidate beats pivot) over the k pivots, by candidate index. */
  strengths: Map<number, number>;
  pivots: number[];
  comparisons: Comparison[];
  tie: boolean;
}

export const DEFAULT_PIVOTS = 3;

/**
 * Ranks N candidates with k pivots instead of comparing all N(N−1)/2 pairs.
 *
 * 1. Pivots: the candidates at evenly spaced positions of the input order,
 *    `floor(i·N/k)` for i = 0..k−1. Deterministic, so a rerun picks the same ones.
 * 2. Every pivot is compared once with every other pivot (k(k−1)/2 comparisons; P(q beats
 *    p) is read as 1 − P(p beats q)), and every other candidate with every pivot
 *    ((N−k)·k comparisons). Total: k·N − k(k+1)/2 ≤ N·k, i.e. O(N·k). Bradley–Terry's
 *    σ is exactly antisymmetric (see `sigmoid`), so the complement read here is the very
 *    number a direct comparison would give: candidates with equal scores get bit-equal
 *    strengths, and their tie is seen.
 * 3. A candidate's strength is its mean P(beats pivot) over all k pivots, a pivot meeting
 *    itself counting 0.5 (no comparison is made). Everyone is thus averaged over the same
 *    pivots, and with Bradley–Terry comparisons the ranking equals sorting by score.
 * 4. Highest strength first; exact ties go to the lowest candidate index.
 *
 * With k ≥ N every pair is compared once (the all-pairs round robin).
 */
export function pivotTournament(
  indices: readonly number[],
  compare: CompareFn,
  options: PivotTournamentOptions = {},
): PivotTournament {
  const n = indices.length;
  const k = Math.min(checkedK(options.k ?? DEFAULT_PIVOTS), n);
  const pivots = pivotPositions(n, k).map((position) => indices[position] as number);
  const comparisons: Comparison[] = [];
  const wins = new Map<string, number>();
  for (const [i, p] of pivots.entries()) {
    for (const q of pivots.slice(i + 1)) record(p, q);
  }
  const isPivot = new Set(pivots);
  for (const c of indices) {
    if (isPivot.has(c)) continue;
    for (const p of pivots) record(c, p);
  }

  const strengths = new Map<number, number>();
  for (const c of indices) {
    const total = pivots.reduce(
      (sum, p) => sum + (c === p ? 0.5 : (wins.get(`${c}>${p}`) ?? 0)),
      0,
    );
    strengths.set(c, k === 0 ? 0 : total / k);
  }
  const ranked = rankByValue(indices.map((index) => ({ index, value: strengths.get(index) ?? 0 })));
  return {
    ranking: ranked.map((entry) => entry.index),
    strengths,
    pivots,
    comparisons,
    tie: isTopTied(ranked),
  };

  function record(a: number, b: number): void {
    const probability = compare(a, b);
    comparisons.push({ a, b, probability });
    wins.set(`${a}>${b}`, probability);
    wins.set(`${b}>${a}`, 1 - probability);
  }
}

/** Comparisons a tournament of n candidates with k pivots makes (for budgeting). */
export function pivotComparisonCount(n: number, k: number): number {
  const pivots = Math.min(checkedK(k), n);
  return pivots * n - (pivots * (pivots + 1)) / 2;
}

function pivotPositions(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor((i * n) / k));
}

function checkedK(k: number): number {
  if (Number.isInteger(k) && k >= 1) return k;
  throw new RangeError(`Expected \`k\` (pivots) to be an integer from 1 and up, got \`${k}\``);
}
