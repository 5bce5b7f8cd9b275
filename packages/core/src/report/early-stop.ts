/**
 * A trajectory whose verifier value fell, by at least the minimum fall each step, for at
 * least M steps in a row: stopping it where the fall began would have kept a better answer
 * (and saved the steps after).
 */
export interface EarlyStopCandidate {
  runId: string;
  sampleId: string;
  taskId: string;
  scorer: string;
  /** 0-based step the first long enough fall starts from (the last value before it fell). */
  fromStep: number;
  /**
   * Falls in a row from `fromStep`: at least M; a plateau, a drop smaller than the minimum,
   * a rise or an unscored step ends it.
   */
  falls: number;
  /** progress[fromStep .. fromStep + falls]: the value before the fall, then each lower one. */
  values: number[];
  /** The whole progress curve, null where a prefix was unscored. */
  progress: (number | null)[];
}

/** Early-stop candidates of one run, as `assay report` lists them. */
export interface EarlyStopReport {
  /** M: how many falls in a row make a candidate. */
  fallSteps: number;
  /** Smallest drop of the value (0–1) that counts as a fall. */
  minFall: number;
  /** Candidates in the run, including those beyond the listed ones. */
  total: number;
  /** Longest fall first, then the largest drop; at most the query's limit. */
  candidates: EarlyStopCandidate[];
}
