import {
  type JobResult,
  type ModelCallDetail,
  type Score,
  type ScoreJob,
  scoreRowOf,
  scorerKey,
  type TruncationRow,
  type UsageRow,
} from "@assay/core";

/** The rows one scored job stores: its score, and for model calls truncations and usage. */
export function jobResultOf(job: ScoreJob, score: Score): JobResult {
  const key = {
    runId: job.runId,
    sampleId: job.sample.id,
    scorer: scorerKey(job.scorer),
    criterion: "",
    repetition: 0,
  };
  const calls = (score.detail ?? {}) as ModelCallDetail;
  const truncations: TruncationRow[] = (calls.truncations ?? []).map((record) => ({
    ...key,
    criterion: record.criterion,
    repetition: record.variant,
    originalTokens: record.originalTokens,
    keptTokens: record.keptTokens,
    droppedTokens: record.droppedTokens,
    slot: record.slot ?? "",
    policy: record.policy,
  }));
  const usage: UsageRow[] =
    calls.usage === undefined
      ? []
      : [
          {
            runId: key.runId,
            sampleId: key.sampleId,
            role: "verifier",
            scorer: key.scorer,
            model: calls.usage.model,
            inputTokens: calls.usage.inputTokens,
            cachedInputTokens: calls.usage.cachedInputTokens ?? 0,
            outputTokens: calls.usage.outputTokens,
            computeMs: calls.usage.computeMs,
            device: calls.usage.device,
          },
        ];
  return { score: scoreRowOf(key, job.rule, score), truncations, usage };
}
