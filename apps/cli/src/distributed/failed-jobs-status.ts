import {
  type BullmqTransport,
  type CorruptJob,
  type FailedJob,
  readFailedJobs,
} from "@assay/queue";
import type { DistributedFlags } from "./distributed-options.js";
import { retryCommand } from "./service-failure.js";

/** Failed jobs `assay status` lists; `assay retry` puts them all back. */
export const FAILED_JOBS_SHOWN = 10;

export interface FailedJobsStatus {
  /** Failed jobs of the run still held by Redis. */
  total: number;
  /** The newest failures first, at most FAILED_JOBS_SHOWN. */
  jobs: FailedJob[];
  /**
   * Failed jobs of any run whose data cannot be read: set aside by the worker that took
   * them (or written so), they name no run, and `assay retry` replaces the run's own.
   */
  corrupt: CorruptJob[];
}

export async function readFailedJobsStatus(
  transport: BullmqTransport,
  runId: string,
): Promise<FailedJobsStatus> {
  const { failed, corrupt } = await readFailedJobs(transport, runId);
  return { total: failed.length, jobs: failed.slice(0, FAILED_JOBS_SHOWN), corrupt };
}

export function renderFailedJobs(
  runId: string,
  failed: FailedJobsStatus,
  flags: DistributedFlags,
): string {
  const corrupt = failed.corrupt.map(
    (job) =>
      `! corrupt job ${job.jobId} in ${job.queue}, set aside as failed: ${job.reason}. It names no run; ` +
      `if it was one of this run's, \`${retryCommand(runId, flags)}\` enqueues its result again.`,
  );
  if (failed.total === 0) return ["failed jobs none", ...corrupt].join("\n");
  const lines = [
    `failed jobs ${failed.total} (attempts used up); put them back in the queues with: ${retryCommand(runId, flags)}`,
    ...failed.jobs.map(
      (job) =>
        `  ${job.sampleId} · ${job.scorer} · ${job.attemptsMade} attempts · ${job.failedAt ?? "?"}\n    ${firstLine(job.error)}`,
    ),
  ];
  const more = failed.total - failed.jobs.length;
  if (more > 0) lines.push(`  … and ${more} more`);
  return [...lines, ...corrupt].join("\n");
}

function firstLine(error: string): string {
  const line = error.split("\n")[0] ?? "";
  return line === "" ? "(no error message)" : line;
}
