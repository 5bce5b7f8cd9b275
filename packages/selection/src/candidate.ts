/** One candidate answer of a task, as selection sees it. */
export interface Candidate {
  /** Position in the task's candidate list; 0 is "the first candidate" of pass@1. */
  index: number;
  sampleId: string;
  /** Continuous verifier score R in [0, 1]; null when the verifier left it unscored. */
  score: number | null;
  /**
   * What a discrete judge would have said (argmax level of the score distribution, scaled
   * to [0, 1]); null when no distribution was kept. Only used to measure discrete ties.
   */
  discreteScore?: number | null;
  /** Whether the answer is right: label, else deterministic check; null when unknown. */
  correct: boolean | null;
}

/** A candidate the verifier scored: the only kind selection can rank. */
export type ScoredCandidate = Candidate & { score: number };

export function isScored(candidate: Candidate): candidate is ScoredCandidate {
  return candidate.score !== null;
}
