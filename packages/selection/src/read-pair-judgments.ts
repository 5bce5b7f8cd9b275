import type { CandidateRow } from "@assay/store/reports";
import { pairScores, type runnerOf } from "@assay/store/reports";
import { type PairPlanOptions, pairPrompts } from "./pair-jobs.js";
import type { PairJudgment } from "./pair-judgments.js";

/**
 * The stored judgments of a page of tasks, by task id: one round trip for the page. A
 * prompt with no stored row reads as unscored (null), so its pair counts as missing.
 */
export async function readPairJudgments(
  runner: ReturnType<typeof runnerOf>,
  runId: string,
  judgeScorer: string,
  page: readonly CandidateRow[],
  options: PairPlanOptions,
): Promise<Map<string, PairJudgment[]>> {
  const indicesByTask = new Map<string, number[]>();
  for (const row of page) {
    indicesByTask.set(row.taskId, [...(indicesByTask.get(row.taskId) ?? []), row.candidateIndex]);
  }
  const prompts = [...indicesByTask].map(
    ([taskId, indices]) => [taskId, pairPrompts(taskId, indices, options)] as const,
  );
  const ids = prompts.flatMap(([, list]) => list.map((p) => p.sampleId));
  const values = await pairScores(runner, runId, judgeScorer, ids);
  return new Map(
    prompts.map(([taskId, list]) => [
      taskId,
      list.map((p) => ({
        first: p.first,
        second: p.second,
        probability: values.get(p.sampleId) ?? null,
      })),
    ]),
  );
}
