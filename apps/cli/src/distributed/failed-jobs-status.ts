import { type BullmqTransport, type FailedJob, failedJobsOf } from "@assay/queue";
import type { DistributedFlags } from "./distributed-options.js";
import { retryCommand } from "./service-failure.js";

/** Failed jobs `assay status` lists; `assay retry` puts them all back. */
export const FAILED_JOBS_SHOWN = 10;

export interface FailedJobsStatus {
  /** Failed jobs of the run still held by Redis. */
  total: number;
  /** The newest failures first, at most FAILED_JOBS_SHOWN. */
  jobs: FailedJob[];
}

export async function readFailedJobs(
  transport: BullmqTransport,
  runId: string,
): Promise<FailedJobsStatus> {
  const failed = await failedJobsOf(transport, runId);
  return { total: failed.length, jobs: failed.slice(0, FAILED_JOBS_SHOWN) };
}

export function renderFailedJobs(
  runId: string,
  failed: FailedJobsStatus,
  flags: DistributedFlags,
): string {
  if (failed.total === 0) return "failed jobs none";
  const lines = [
    `failed jobs ${failed.total} (attempts used up); put them back in the queues with: ${retryCommand(runId, flags)}`,
    ...failed.jobs.map(
      (job) =>
        `  ${job.sampleId} · ${job.scorer} · ${job.attemptsMade} attempts · ${job.failedAt ?? "?"}\n    ${firstLine(job.error)}`,
    ),
  ];
  const more = failed.total - failed.jobs.length;
  if (more > 0) lines.push(`  … and ${more} more`);
  return lines.join("\n");
}

function firstLine(error: string): string {
  const line = error.split("\n")[0] ?? "";
  return line === "" ? "(no error message)" : line;
}
