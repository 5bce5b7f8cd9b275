import type { SelectionSpec } from "@assay/core";
import { bestOfN } from "../best-of-n.js";
import { decidingRanking, type TaskRanking } from "../deciding-ranking.js";
import { pivotTournament } from "../pivot-tournament.js";
import { preferenceProbability } from "../preference.js";

/** A candidate as the ablation sees it: a score under one view and whether it is right. */
export interface AblationCandidate {
  index: number;
  score: number | null;
  correct: boolean | null;
}

export interface PickOptions {
  method: SelectionSpec["method"];
  /** Pivots of the tournament. */
  k: number;
  /** Seed of a judged tournament's pivot draw (the run's). Default 0. */
  seed?: number;
}

/** How one task fared under one view, as the run's accuracy counts it. */
export interface TaskOutcome {
  /** Nothing was scored, so nothing was picked (the task is unsolved). */
  unselected: boolean;
  tie: boolean;
  /** Correctness of pass@1, the pick and the oracle are all known: the task counts. */
  counted: boolean;
  solved: boolean;
}

/**
 * The run's own selection on re-aggregated scores: best-of-N or the pivot tournament over
 * the scored candidates in index order, an exact tie going to the lowest index; then the
 * correctness rules of the run's accuracy (an unpicked task is unsolved, and a task counts
 * only where pass@1, the pick and the oracle are all known). `judged` is the task's
 * ranking by the run's pairwise judge, which no re-aggregation changes: as in the run, it
 * decides where it ranks anyone, and best-of-N on the re-aggregated score decides where not.
 */
export function taskOutcome(
  candidates: readonly AblationCandidate[],
  options: PickOptions,
  judged?: TaskRanking,
): TaskOutcome {
  const scored = candidates.filter((c): c is ScoredAblationCandidate => c.score !== null);
  const onScores = pick(
    scored,
    judged === undefined ? options : { ...options, method: "best_of_n" },
  );
  const { ranking, tie } = decidingRanking(onScores, judged).ranked;
  const first = ranking[0];
  const picked = candidates.find((c) => c.index === first);
  const selectedCorrect = picked === undefined ? false : picked.correct;
  const firstCorrect = lowestIndex(candidates)?.correct ?? null;
  const anyCorrect = anyCorrectOf(candidates);
  const counted = firstCorrect !== null && selectedCorrect !== null && anyCorrect !== null;
  return {
    unselected: picked === undefined,
    tie,
    counted,
    solved: counted && selectedCorrect === true,
  };
}

type ScoredAblationCandidate = AblationCandidate & { score: number };

function pick(scored: readonly ScoredAblationCandidate[], options: PickOptions): TaskRanking {
  if (options.method === "best_of_n") {
    const { ranking, tie } = bestOfN(scored.map((c) => ({ ...c, sampleId: "" })));
    return { ranking, tie, comparisons: [] };
  }
  const scores = new Map(scored.map((c) => [c.index, c.score]));
  const { ranking, tie, comparisons } = pivotTournament(
    scored.map((c) => c.index),
    (a, b) => preferenceProbability(scores.get(a) ?? 0, scores.get(b) ?? 0),
    { k: options.k },
  );
  return { ranking, tie, comparisons };
}

function lowestIndex(candidates: readonly AblationCandidate[]): AblationCandidate | undefined {
  return candidates.reduce<AblationCandidate | undefined>(
    (low, c) => (low === undefined || c.index < low.index ? c : low),
    undefined,
  );
}

function anyCorrectOf(candidates: readonly AblationCandidate[]): boolean | null {
  if (candidates.some((c) => c.correct === true)) return true;
  if (candidates.length > 0 && candidates.every((c) => c.correct === false)) return false;
  return null;
}
