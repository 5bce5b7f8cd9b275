import {
  type JobResult,
  resultKeyOfJob,
  type Score,
  type ScoreJob,
  scoreRowOf,
  type TruncationRow,
  type UsageRow,
} from "@assay/core";

/**
 * What a deterministic score has of truncations and usage: one empty list for them all
 * (two new ones per result were a share of what scoring allocated). Frozen: nothing adds
 * to a result's lists after it is made.
 */
const NO_ROWS: never[] = Object.freeze([]) as never[];

/** The rows one scored job stores: its score, and for model calls truncations and usage. */
export function jobResultOf(job: ScoreJob, score: Score): JobResult {
  const key = resultKeyOfJob(job);
  const calls = score.calls;
  if (calls === undefined)
    return { score: scoreRowOf(key, job.rule, score), truncations: NO_ROWS, usage: NO_ROWS };
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
    cacheWrite1hTokens: 0,
    outputTokens: calls.usage.outputTokens,
    computeMs: calls.usage.computeMs,
    device: calls.usage.device,
    prompts: calls.usage.prompts ?? null,
    forwardPasses: calls.usage.forwardPasses ?? null,
  };
  return { score: scoreRowOf(key, job.rule, score), truncations, usage: [usage] };
}
