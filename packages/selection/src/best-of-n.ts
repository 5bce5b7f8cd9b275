import type { ScoredCandidate } from "./candidate.js";
import { isTopTied, rankByValue } from "./tie-break.js";

export interface BestOfN {
  /** Candidate indices, best first. */
  ranking: number[];
  tie: boolean;
}

/** Best-of-N: the highest verifier score wins; no pairwise comparisons are needed. */
export function bestOfN(candidates: readonly ScoredCandidate[]): BestOfN {
  const ranked = rankByValue(candidates.map((c) => ({ index: c.index, value: c.score })));
  return { ranking: ranked.map((entry) => entry.index), tie: isTopTied(ranked) };
}
