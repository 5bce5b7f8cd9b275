import { type PairJudgment, type PairPlanOptions, pairPrompts } from "@assay/selection";
import type { ScoreLookup } from "@assay/store";

/** A task as the judge's plan knows it: its id and its candidates' stored indices. */
export interface PlannedTask {
  taskId: string;
  candidateIndices: readonly number[];
}

/**
 * The stored judgments of a batch of tasks, by task id: the pair prompts are worked out
 * again from the same pivots the plan drew, and read in one round trip. A prompt with no
 * stored row reads as unscored (null), so its pair counts as missing. Selection and the
 * selection ablation both read them here, so both rank a task by the same judgments.
 */
export async function readPairJudgments(
  tasks: readonly PlannedTask[],
  judgeScorer: string,
  plan: PairPlanOptions,
  lookup: ScoreLookup,
): Promise<Map<string, PairJudgment[]>> {
  const prompts = tasks.map(
    (task) => [task.taskId, pairPrompts(task.taskId, task.candidateIndices, plan)] as const,
  );
  const values = await lookup(
    judgeScorer,
    prompts.flatMap(([, list]) => list.map((p) => p.sampleId)),
  );
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
