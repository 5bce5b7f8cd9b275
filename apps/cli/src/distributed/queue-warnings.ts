import type { QueueHealth } from "@assay/queue";
import type { ModelQueue } from "@assay/store";
import type { DistributedFlags } from "./distributed-options.js";
import { pasteableCommand } from "./pasteable-command.js";
import type { RunStatus } from "./run-status.js";
import { retryCommand } from "./service-failure.js";

/** Workers look for stalled jobs this often unless started with --stalled-interval-ms. */
const DEFAULT_STALLED_CHECK_S = 30;

/**
 * What an operator must know that the counts do not say: Redis may evict jobs, a worker
 * died holding jobs (and when they come back), jobs of the run wait where no worker takes
 * them. Each line that asks for something ends with the command that does it.
 */
export function queueWarnings(status: RunStatus, flags: DistributedFlags): string[] {
  const lines: string[] = [];
  if (status.redisEvictionPolicy !== "noeviction") {
    lines.push(
      `! Redis maxmemory-policy is "${status.redisEvictionPolicy}", not "noeviction": under memory ` +
        "pressure Redis may delete queued jobs, and their results never arrive. Set " +
        "`maxmemory-policy noeviction` (see infra/redis.conf); workers and producers refuse " +
        "to start until then, unless given --allow-eviction.",
    );
  }
  if (status.queueHealth.some((health) => !health.workersKnown)) {
    lines.push(
      "! Redis does not list its clients (CLIENT LIST is refused): live workers, and jobs held " +
        "by workers that are gone, cannot be shown (workers: ?).",
    );
  }
  for (const health of status.queueHealth) {
    if (health.orphaned.jobs > 0) lines.push(orphanedLine(health, flags, status.modelQueues));
    if (health.runJobsWithoutWorker > 0) lines.push(unservedLine(status, health, flags));
    for (const job of health.corrupt) {
      lines.push(
        `! corrupt job ${job.jobId} ${job.state === "active" ? "is running" : "waits"} in ${health.queue}: ` +
          `${job.reason}. The worker that takes it sets it aside as failed, with this reason.`,
      );
    }
  }
  return lines;
}

function orphanedLine(
  health: QueueHealth,
  flags: DistributedFlags,
  modelQueues: readonly ModelQueue[],
): string {
  const { jobs, workers, locksExpireInMs } = health.orphaned;
  const lockS = locksExpireInMs === null ? 0 : Math.ceil(locksExpireInMs / 1000);
  const held =
    `! ${jobs} running jobs in ${health.queue} belong to workers that are gone ` +
    `(${workers.join(", ")}): nothing is scoring them.`;
  const expire = lockS > 0 ? `their locks expire in ${lockS} s` : "their locks have expired";
  if (health.workers.length === 0) {
    return (
      `${held} ${capitalized(expire)}, but no live worker serves ${health.queue} to put them ` +
      `back; start one with: ${workerCommand(health.queue, health.model, flags, modelQueues)}`
    );
  }
  return (
    `${held} They go back to waiting within ${lockS + DEFAULT_STALLED_CHECK_S} s: ${expire}, ` +
    `then a live worker's check for stalled jobs (every ${DEFAULT_STALLED_CHECK_S} s unless ` +
    "--stalled-interval-ms says otherwise) puts them back."
  );
}

function unservedLine(status: RunStatus, health: QueueHealth, flags: DistributedFlags): string {
  const jobs = `! ${health.runJobsWithoutWorker} of this run's jobs wait in ${health.queue}`;
  if (health.strayModel !== null) {
    return (
      `${jobs}, which is named after the spelling "${health.strayModel}", not after the ` +
      `model it names: no worker takes jobs from it. Move them to their model's queue with: ${retryCommand(status.runId, flags)}`
    );
  }
  return `${jobs} and no worker serves it; start one with: ${workerCommand(health.queue, health.model, flags, status.modelQueues)}`;
}

/**
 * The worker that serves the queue: for the GPU pool, with the model as the run's producer
 * resolved it (an absolute folder or a hub id, `modelQueues`), else as the run's jobs
 * spell it.
 */
export function workerCommand(
  queue: string,
  spelled: string | null,
  flags: DistributedFlags,
  modelQueues: readonly ModelQueue[] = [],
): string {
  if (!queue.startsWith("gpu-")) return pasteableCommand(["worker", "--pool", "cpu"], flags);
  const resolved = modelQueues.find((entry) => entry.queue === queue)?.model;
  const model = resolved ?? spelled ?? "<model folder or hub id>";
  const command = pasteableCommand(["worker", "--pool", "gpu", "--model", model], flags);
  // A relative folder is relative to where the run was produced.
  return model.startsWith("/") || resolved !== undefined || spelled === null
    ? command
    : `${command}   # from the folder where the run was produced`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
