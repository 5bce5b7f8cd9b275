import { bestOfN } from "./best-of-n.js";
import { type Candidate, isScored } from "./candidate.js";
import { decidingRanking, type PickReason } from "./deciding-ranking.js";
import type { PairJudgment } from "./pair-judgments.js";
import { type PairwiseEvidence, pairwiseTournament } from "./pairwise-tournament.js";
import { DEFAULT_PIVOTS, pivotTournament } from "./pivot-tournament.js";
import { type Comparison, preferenceProbability } from "./preference.js";
import { TIE_BREAK, type TieBreak } from "./tie-break.js";

export type SelectionMethod = "best_of_n" | "pivot_tournament";

export interface SelectOptions {
  /** Default "best_of_n". */
  method?: SelectionMethod;
  /** Pivots of the tournament. Default 3. */
  k?: number;
  /** Bradley–Terry scale β in σ(β(R_A − R_B)). Default 1. */
  scale?: number;
  /** Seed of the pivot draw when a pairwise judge's judgments are given. Default 0. */
  seed?: number;
}

/** Everything selection decided for one task, and the evidence it used. */
export interface TaskSelection {
  taskId: string;
  method: SelectionMethod;
  candidates: number;
  /**
   * Null when no candidate was scored (by the verifier, nor under a judged tournament by
   * the judge): nothing to select from.
   */
  selectedIndex: number | null;
  selectedSampleId: string | null;
  /** Verifier score by candidate index (null: unscored, left out of the ranking). */
  scores: Record<number, number | null>;
  /** Pairwise P(a beats b) the method used; empty for best-of-N. */
  comparisons: Comparison[];
  /** Candidate indices, best first (scored candidates only). */
  ranking: number[];
  /** The top was an exact tie on the method's own value (score or strength). */
  tie: boolean;
  /** The top would have tied for a discrete judge (argmax level); null without distributions. */
  discreteTie: boolean | null;
  /** How a tie was broken; null when there was none. */
  tieBreak: TieBreak | null;
  /** Why no comparison decided the pick (one candidate, no judged pair, nothing scored). */
  reason?: PickReason;
  /**
   * Selection solved the task: the picked candidate is correct. False when nothing was
   * picked (a task with no scored candidate is unsolved: docs/architecture.md, "Selection");
   * null when the pick's correctness is unknown.
   */
  selectedCorrect: boolean | null;
  /**
   * Tournament over a pairwise judge only: its pivots, seed, pair-probability matrix,
   * strengths and position bias.
   */
  pairwise?: PairwiseEvidence;
  /** Beside a judged tournament: what best-of-N on the pointwise score picked. */
  pointwise?: { selectedIndex: number | null; selectedCorrect: boolean | null };
  /** pass@1: the first candidate (lowest index) is correct. */
  firstCorrect: boolean | null;
  /** Oracle: some candidate is correct (null when none is known correct and some unknown). */
  anyCorrect: boolean | null;
}

/**
 * Picks one candidate of a task. With `judgments` (a pairwise judge's stored probabilities)
 * the pivot tournament ranks by Bradley–Terry strengths fitted to them, and best-of-N's
 * pointwise pick is kept beside it; where the judge compared no pair (one candidate, or
 * nothing judged in both orders) that pointwise pick is the pick. Without judgments it
 * derives P(A beats B) from the pointwise scores (and so always agrees with best-of-N).
 */
export function selectTask(
  taskId: string,
  candidates: readonly Candidate[],
  options: SelectOptions = {},
  judgments?: readonly PairJudgment[],
): TaskSelection {
  const method = options.method ?? "best_of_n";
  const scoredCandidates = candidates.filter(isScored);
  const pointwise = { ...bestOfN(scoredCandidates), comparisons: [] };
  const judged =
    method === "pivot_tournament" && judgments !== undefined
      ? pairwiseTournament(
          candidates.map((c) => c.index),
          judgments,
          { k: options.k ?? DEFAULT_PIVOTS, seed: options.seed ?? 0, taskId },
        )
      : undefined;
  const onScores =
    method === "best_of_n" || judged !== undefined
      ? pointwise
      : tournamentOnScores(candidates, scoredCandidates, options);
  const { ranked: outcome, reason } = decidingRanking(onScores, judged);
  const selected = candidateAt(candidates, outcome.ranking[0]);
  const pointwisePick = candidateAt(candidates, pointwise.ranking[0]);
  return {
    taskId,
    method,
    candidates: candidates.length,
    selectedIndex: selected?.index ?? null,
    selectedSampleId: selected?.sampleId ?? null,
    scores: scoresOf(candidates),
    comparisons: outcome.comparisons,
    ranking: outcome.ranking,
    tie: outcome.tie,
    discreteTie: discreteTieOf(scoredCandidates),
    tieBreak: outcome.tie ? TIE_BREAK : null,
    ...(reason !== undefined && { reason }),
    selectedCorrect: selected === undefined ? false : selected.correct,
    ...(judged !== undefined && {
      pairwise: judged.evidence,
      pointwise: {
        selectedIndex: pointwisePick?.index ?? null,
        selectedCorrect: pointwisePick === undefined ? false : pointwisePick.correct,
      },
    }),
    firstCorrect: firstOf(candidates)?.correct ?? null,
    anyCorrect: anyCorrect(candidates),
  };
}

function tournamentOnScores(
  candidates: readonly Candidate[],
  scoredCandidates: readonly Candidate[],
  options: SelectOptions,
) {
  const byIndex = new Map(candidates.map((c) => [c.index, c]));
  const scoreOf = (index: number) => byIndex.get(index)?.score ?? 0;
  return pivotTournament(
    scoredCandidates.map((c) => c.index),
    (a, b) => preferenceProbability(scoreOf(a), scoreOf(b), options.scale),
    options.k === undefined ? {} : { k: options.k },
  );
}

// Selection runs once per task over every task of a run: the helpers below do in one loop,
// without intermediate arrays, what a map or sort would.

/** The candidate with that index; the last one where several share it (as a Map keeps). */
function candidateAt(candidates: readonly Candidate[], index: number | undefined) {
  if (index === undefined) return undefined;
  for (let i = candidates.length - 1; i >= 0; i -= 1) {
    const candidate = candidates[i] as Candidate;
    if (candidate.index === index) return candidate;
  }
  return undefined;
}

/** Verifier score by candidate index (the last candidate's where several share one). */
function scoresOf(candidates: readonly Candidate[]): Record<number, number | null> {
  const scores: Record<number, number | null> = {};
  for (const c of candidates) scores[c.index] = c.score;
  return scores;
}

function firstOf(candidates: readonly Candidate[]): Candidate | undefined {
  return candidates.reduce<Candidate | undefined>(
    (first, c) => (first === undefined || c.index < first.index ? c : first),
    undefined,
  );
}

function anyCorrect(candidates: readonly Candidate[]): boolean | null {
  if (candidates.some((c) => c.correct === true)) return true;
  if (candidates.length > 0 && candidates.every((c) => c.correct === false)) return false;
  return null;
}

/** More than one candidate shares the top discrete score; null when one has none. */
function discreteTieOf(candidates: readonly Candidate[]): boolean | null {
  if (candidates.length === 0) return null;
  let top = Number.NEGATIVE_INFINITY;
  let atTop = 0;
  for (const c of candidates) {
    const value = c.discreteScore ?? null;
    if (value === null) return null;
    if (value > top) {
      top = value;
      atTop = 1;
    } else if (value === top) atTop += 1;
  }
  return atTop > 1;
}
