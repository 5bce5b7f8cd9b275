import type { CandidatePair } from "./pivot-pairs.js";

/** One stored judgment: P(`first` better than `second`), `first` shown as answer A. */
export interface PairJudgment {
  first: number;
  second: number;
  /** Null when the judge left the prompt unscored (e.g. the two answers did not fit). */
  probability: number | null;
}

/** A pair judged in both orders, the two read as P(a beats b) and averaged. */
export interface JudgedPair extends CandidatePair {
  /** P(a beats b) with a shown first. */
  aFirst: number;
  /** P(a beats b) with b shown first (1 − the stored P(b better than a)). */
  bFirst: number;
  /** The mean of both orders: what the tournament uses. */
  probability: number;
  /** The preferred answer changes with the order: position bias. */
  flipped: boolean;
}

export interface CombinedJudgments {
  judged: JudgedPair[];
  /** Pairs without a scored judgment in both orders: left out of the fit. */
  missing: CandidatePair[];
}

/**
 * Pairs each pair's two orders. A pair counts only when both orders were scored: one order
 * alone carries the position bias that the second order is there to cancel.
 */
export function combineOrders(
  pairs: readonly CandidatePair[],
  judgments: readonly PairJudgment[],
): CombinedJudgments {
  const byOrder = new Map(judgments.map((j) => [`${j.first}>${j.second}`, j.probability]));
  const judged: JudgedPair[] = [];
  const missing: CandidatePair[] = [];
  for (const pair of pairs) {
    const ab = byOrder.get(`${pair.a}>${pair.b}`);
    const ba = byOrder.get(`${pair.b}>${pair.a}`);
    if (ab === null || ab === undefined || ba === null || ba === undefined) {
      missing.push(pair);
      continue;
    }
    const bFirst = 1 - ba;
    judged.push({
      ...pair,
      aFirst: ab,
      bFirst,
      probability: (ab + bFirst) / 2,
      flipped: Math.sign(ab - 0.5) !== Math.sign(bFirst - 0.5),
    });
  }
  return { judged, missing };
}
