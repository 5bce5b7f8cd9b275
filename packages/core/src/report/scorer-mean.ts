import { meanInterval } from "../stats/mean-interval.js";

/**
 * What a report keeps of one scorer's scored values: enough to give their mean and its
 * interval without the values themselves (a run's rollup stores these few numbers).
 */
export interface ScorerMoments {
  scorer: string;
  /** Scored results (unscored ones have no value and are left out). */
  scored: number;
  sum: number;
  sumOfSquares: number;
  /** Scored values strictly between 0 and 1; none means the scorer passes or fails. */
  fractional: number;
}

/** One scorer's mean over its scored results, with its 95% interval. */
export interface ScorerMean {
  scorer: string;
  /** Scored results the mean is over. */
  scored: number;
  mean: number;
  low: number;
  high: number;
  /** Results scored 1 when every value is 0 or 1 (the mean is a pass rate); else null. */
  passes: number | null;
}

export function scorerMeanOf(m: ScorerMoments): ScorerMean {
  const binary = m.fractional === 0;
  const { low, high } = meanInterval(m.scored, m.sum, m.sumOfSquares, binary);
  return {
    scorer: m.scorer,
    scored: m.scored,
    mean: m.sum / m.scored,
    low,
    high,
    // A sum of 0/1 values is a whole number; rounding only removes float noise.
    passes: binary ? Math.round(m.sum) : null,
  };
}
