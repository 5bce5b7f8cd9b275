import { seededRandom } from "./seeded-random.js";

/** Two candidate indices to judge against each other, in no particular order. */
export interface CandidatePair {
  a: number;
  b: number;
}

/**
 * The k pivots of a task: a seeded shuffle of its candidate indices, first k taken. The key
 * is the seed and the task id, so each task draws its own pivots and a rerun with the same
 * seed draws the same ones. k is capped at N.
 */
export function choosePivots(
  indices: readonly number[],
  k: number,
  seed: number,
  taskId: string,
): number[] {
  const random = seededRandom(`${seed}\u0000${taskId}`);
  const shuffled = [...indices].sort((x, y) => x - y);
  // Fisher–Yates, stopped after the k positions that are kept.
  const count = Math.min(checkedK(k), shuffled.length);
  for (let i = 0; i < count; i += 1) {
    const j = i + Math.floor(random() * (shuffled.length - i));
    [shuffled[i], shuffled[j]] = [shuffled[j] as number, shuffled[i] as number];
  }
  return shuffled.slice(0, count);
}

/**
 * The pairs a pivot tournament judges: every pivot with every other pivot, and every other
 * candidate with every pivot. That is k·N − k(k+1)/2 pairs (all N(N−1)/2 when k ≥ N − 1).
 */
export function pivotPairs(indices: readonly number[], pivots: readonly number[]): CandidatePair[] {
  const pairs: CandidatePair[] = [];
  for (const [i, p] of pivots.entries()) {
    for (const q of pivots.slice(i + 1)) pairs.push({ a: p, b: q });
  }
  const isPivot = new Set(pivots);
  for (const c of indices) {
    if (isPivot.has(c)) continue;
    for (const p of pivots) pairs.push({ a: c, b: p });
  }
  return pairs;
}

/**
 * The sample id under which the judgment "is `first` better than `second`" is stored (the
 * first answer is shown as A). Selection finds a task's judgments by these ids.
 */
export function pairSampleId(taskId: string, first: number, second: number): string {
  return `${taskId}#pair-${first}-${second}`;
}

export function checkedK(k: number): number {
  if (Number.isInteger(k) && k >= 1) return k;
  throw new RangeError(`Expected \`k\` (pivots) to be an integer from 1 and up, got \`${k}\``);
}
