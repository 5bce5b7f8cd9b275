import type { Comparison } from "./preference.js";

/**
 * Why no comparison between candidates decided a task's pick; absent when one did.
 * - `single candidate`: one candidate was in the running (the task's only one, or the only
 *   one scored), so it is picked whatever the method;
 * - `no judged pair`: the judge compared no pair in both orders, so best-of-N on the
 *   verifier's score picked;
 * - `no scored candidate`: neither the verifier nor the judge scored any candidate: nothing
 *   is picked and the task is unsolved.
 */
export type PickReason = "single candidate" | "no judged pair" | "no scored candidate";

/** Candidate indices best first, as every method ranks them. */
export interface TaskRanking {
  ranking: number[];
  tie: boolean;
  comparisons: Comparison[];
}

export interface DecidingRanking {
  ranked: TaskRanking;
  reason: PickReason | undefined;
}

/**
 * The ranking a task's pick comes from. A judged tournament's, where the judge compared
 * some pair in both orders; where it compared none (a task of one candidate has no pair,
 * and a judge may leave every pair unscored or unstored) the ranking on the verifier's
 * score, so that such a task is picked as best-of-N would pick it rather than counted as
 * having no scored candidate.
 */
export function decidingRanking(
  onScores: TaskRanking,
  judged: TaskRanking | undefined,
): DecidingRanking {
  const judgeDecides = judged !== undefined && judged.ranking.length > 0;
  const ranked = judgeDecides ? judged : onScores;
  return { ranked, reason: reasonOf(ranked.ranking.length, judged !== undefined && !judgeDecides) };
}

function reasonOf(ranked: number, judgeComparedNone: boolean): PickReason | undefined {
  if (ranked === 0) return "no scored candidate";
  if (ranked === 1) return "single candidate";
  return judgeComparedNone ? "no judged pair" : undefined;
}
