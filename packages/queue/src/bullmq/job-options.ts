import { jobIdOf, resultKeyOfJob, type ScoreJob } from "@assay/core";
import type { BulkJobOptions } from "bullmq";
import type { ResolvedOptions } from "./options.js";

/**
 * Per-job options. The id is derived from the result key, so re-adding a job that is still
 * in Redis is a no-op; finished jobs are trimmed so Redis memory stays flat on long runs.
 */
export function jobOptionsOf(job: ScoreJob, options: ResolvedOptions): BulkJobOptions {
  return {
    jobId: jobIdOf(resultKeyOfJob(job)),
    attempts: options.attempts,
    backoff: { type: "exponential", delay: options.backoffMs, jitter: 0.2 },
    removeOnComplete: { count: options.keepCompleted },
    removeOnFail: { count: options.keepFailed },
  };
}
