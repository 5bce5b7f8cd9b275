/**
 * The plain data selection works on, as the store reads and writes it: the candidates of
 * a task in, one selection record per task out. Selection never reads the store itself.
 */

/** Which scorers selection reads. */
export interface CandidateQuery {
  /** The scorer whose value ranks candidates (the verifier). */
  verifierScorer: string;
  /** Deterministic scorer deciding correctness where a candidate has no label. */
  checkScorer?: string;
}

/** One stored candidate with what selection needs to know about it. */
export interface CandidateRow {
  taskId: string;
  sampleId: string;
  candidateIndex: number;
  label: boolean | null;
  /** Mean of the verifier's rows; null when any row is unscored or none exists. */
  verifierScore: number | null;
  /**
   * For each verifier row that has `detail.criteria`, in criterion and repetition order,
   * for the discrete-judge comparison: the score distributions it kept
   * (`criteria[].variants[].distribution`, in order), or the row's discrete level (a
   * number: `discreteScoreOf` of its detail) where the store had it already.
   */
  verifierDistributions: unknown[];
  /**
   * The discrete-judge score, when the store worked it out already from the rows' stored
   * levels (null: no verifier row has a distribution); `verifierDistributions` is then empty.
   */
  discreteScore?: number | null;
  /** Mean of the check scorer's rows; null when any is unscored or none exists. */
  checkValue: number | null;
}

/** A task's candidates, by candidate index. */
export interface TaskCandidates {
  taskId: string;
  candidates: CandidateRow[];
}

/** A task's selection as stored (selection's TaskSelection becomes one). */
export interface SelectionRecord {
  taskId: string;
  method: string;
  candidates: number;
  selectedIndex: number | null;
  selectedSampleId: string | null;
  tie: boolean;
  discreteTie: boolean | null;
  tieBreak: string | null;
  selectedCorrect: boolean | null;
  firstCorrect: boolean | null;
  anyCorrect: boolean | null;
  /** The evidence: scores, pairwise probabilities, ranking. */
  detail: Record<string, unknown>;
}

/** One criterion of one stored verifier row: its K variant values, in variant order. */
export interface CriterionValues {
  criterion: string;
  /** Null where that prompt was not scored (no score mass, out of range). */
  values: (number | null)[];
}
