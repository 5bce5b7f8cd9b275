/**
 * How every method breaks an exact tie at the top: the lowest candidate index wins. It is
 * deterministic, needs no random seed, and matches pass@1's notion of "first".
 */
export const TIE_BREAK = "lowest_candidate_index" as const;
export type TieBreak = typeof TIE_BREAK;

export interface RankedEntry {
  index: number;
  value: number;
}

/** Highest value first; equal values in candidate-index order (the documented tie-break). */
export function rankByValue<T extends RankedEntry>(entries: readonly T[]): T[] {
  const ranked = entries.slice();
  // Selection ranks every task of a run, most of a few candidates: there an insertion sort
  // allocates nothing, where Array.prototype.sort allocates a work area for each call
  // (~40% of all a 250,000-task pass allocated). Both keep equal entries in order.
  if (ranked.length > SMALL) return ranked.sort(byRank);
  for (let i = 1; i < ranked.length; i += 1) {
    const entry = ranked[i] as T;
    let j = i - 1;
    for (; j >= 0 && byRank(ranked[j] as T, entry) > 0; j -= 1) ranked[j + 1] = ranked[j] as T;
    ranked[j + 1] = entry;
  }
  return ranked;
}

const SMALL = 16;

function byRank(x: RankedEntry, y: RankedEntry): number {
  return y.value - x.value || x.index - y.index;
}

/** True when more than one entry shares the top value exactly (no epsilon: R is continuous). */
export function isTopTied(ranked: readonly RankedEntry[]): boolean {
  const [first, second] = ranked;
  return first !== undefined && second !== undefined && first.value === second.value;
}
