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
  return [...entries].sort((x, y) => y.value - x.value || x.index - y.index);
}

/** True when more than one entry shares the top value exactly (no epsilon: R is continuous). */
export function isTopTied(ranked: readonly RankedEntry[]): boolean {
  const [first, second] = ranked;
  return first !== undefined && second !== undefined && first.value === second.value;
}
