import {
  type JobResult,
  resultKeyOfJob,
  type Score,
  type ScoreJob,
  scoreRowOf,
  type TruncationRow,
  type UsageRow,
} from "@assay/core";

/** The rows one scored job stores: its score, and for model calls truncations and usage. */
export function jobResultOf(job: ScoreJob, score: Score): JobResult {
  const key = resultKeyOfJob(job);
  const calls = score.calls;
  if (calls === undefined)
    return { score: scoreRowOf(key, job.rule, score), truncations: [], usage: [] };
  const truncations: TruncationRow[] = calls.truncations.map((record) => ({
    ...key,
    criterion: record.criterion,
    repetition: record.variant,
    originalTokens: record.originalTokens,
    keptTokens: record.keptTokens,
    droppedTokens: record.droppedTokens,
    slot: record.slot ?? "",
    policy: record.policy,
  }));
  const usage: UsageRow = {
    runId: key.runId,
    sampleId: key.sampleId,
    role: "verifier",
    scorer: key.scorer,
    model: calls.usage.model,
    inputTokens: calls.usage.inputTokens,
    cachedInputTokens: calls.usage.cachedInputTokens ?? 0,
    cacheWriteTokens: 0,
    outputTokens: calls.usage.outputTokens,
    computeMs: calls.usage.computeMs,
    device: calls.usage.device,
    prompts: calls.usage.prompts ?? null,
    forwardPasses: calls.usage.forwardPasses ?? null,
  };
  return { score: scoreRowOf(key, job.rule, score), truncations, usage: [usage] };
}
