import { fitBradleyTerry } from "./bradley-terry.js";
import { combineOrders, type JudgedPair, type PairJudgment } from "./pair-judgments.js";
import { choosePivots, pivotPairs } from "./pivot-pairs.js";
import type { Comparison } from "./preference.js";
import { isTopTied, rankByValue } from "./tie-break.js";

export interface PairwiseTournamentOptions {
  /** Pivots; capped at N. */
  k: number;
  /** Seed of the pivot draw (recorded with the selection). */
  seed: number;
  taskId: string;
}

/** What a judged tournament used and found, kept in the selection's detail. */
export interface PairwiseEvidence {
  seed: number;
  pivots: number[];
  /** Pairs planned: k·N − k(k+1)/2. */
  pairs: number;
  /** Pairs judged in both orders (the rest are missing and left out). */
  judgedPairs: number;
  /** Judged pairs whose preferred answer changed with the order. */
  flippedPairs: number;
  /** P(row beats column), both orders averaged; null where the pair was not judged. */
  matrix: { indices: number[]; probabilities: (number | null)[][] };
  /** Fitted Bradley–Terry log-strength by candidate index. */
  strengths: Record<number, number>;
  /** The Bradley–Terry fit reached its tolerance. */
  converged: boolean;
}

export interface PairwiseTournament {
  /** Candidate indices with some judged pair, strongest first. */
  ranking: number[];
  comparisons: Comparison[];
  tie: boolean;
  evidence: PairwiseEvidence;
}

/**
 * Ranks a task's candidates from a pairwise judge's stored probabilities: the pairs of k
 * seeded pivots, each judged in both orders and averaged, then Bradley–Terry strengths
 * fitted to them. Highest strength first; the existing tie-break (lowest index) decides an
 * exact tie. Strengths are rounded to 1e-9 before ranking so that candidates the judge
 * cannot tell apart tie instead of differing in the last bits of an iterative fit.
 */
export function pairwiseTournament(
  indices: readonly number[],
  judgments: readonly PairJudgment[],
  options: PairwiseTournamentOptions,
): PairwiseTournament {
  // Sorted, so the fit sums in one order and the result cannot depend on the input's.
  const sorted = [...new Set(indices)].sort((x, y) => x - y);
  const pivots = choosePivots(sorted, options.k, options.seed, options.taskId);
  const pairs = pivotPairs(sorted, pivots);
  const { judged } = combineOrders(pairs, judgments);
  const fit = fitBradleyTerry(judged);
  const ranked = rankByValue(
    [...fit.strengths].map(([index, value]) => ({ index, value: Math.round(value * 1e9) / 1e9 })),
  );
  return {
    ranking: ranked.map((entry) => entry.index),
    comparisons: judged.map(({ a, b, probability }) => ({ a, b, probability })),
    tie: isTopTied(ranked),
    evidence: {
      seed: options.seed,
      pivots,
      pairs: pairs.length,
      judgedPairs: judged.length,
      flippedPairs: judged.filter((pair) => pair.flipped).length,
      matrix: matrixOf(sorted, judged),
      strengths: Object.fromEntries(fit.strengths),
      converged: fit.converged,
    },
  };
}

function matrixOf(sorted: readonly number[], judged: readonly JudgedPair[]) {
  const position = new Map(sorted.map((index, i) => [index, i]));
  const probabilities = sorted.map(() => sorted.map((): number | null => null));
  for (const pair of judged) {
    const a = position.get(pair.a) as number;
    const b = position.get(pair.b) as number;
    (probabilities[a] as (number | null)[])[b] = pair.probability;
    (probabilities[b] as (number | null)[])[a] = 1 - pair.probability;
  }
  return { indices: [...sorted], probabilities };
}
