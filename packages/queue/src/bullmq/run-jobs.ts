import { jobIdOf, resultKeyOfJob, type ScoreJob, scorerKey } from "@assay/core";
import type { Job, Queue } from "bullmq";
import type { BullmqTransport } from "./bullmq-transport.js";
import { isSpelledQueue, modelOf, queueNameOf } from "./queue-names.js";
import { corruptionOf, TolerantQueue } from "./tolerant-job.js";

/** A job that used up its attempts (or failed unrecoverably), as `assay status` lists it. */
export interface FailedJob {
  queue: string;
  jobId: string;
  sampleId: string;
  /** The scorer key. */
  scorer: string;
  attemptsMade: number;
  /** The last attempt's error. */
  error: string;
  failedAt: string | null;
}

export interface RequeueResult {
  /** Jobs put back in their queue: new ones, and finished ones moved back to waiting. */
  enqueued: number;
  /** Jobs left alone because they are waiting, delayed or running already. */
  pending: number;
}

const PAGE = 500;
/** Failed-job errors are stack traces at worst; the first line or two say what happened. */
const ERROR_CHARS = 500;
/** A retried job gets its full number of attempts again. */
const FRESH_ATTEMPTS = { resetAttemptsMade: true, resetAttemptsStarted: true } as const;

/** A failed job whose data cannot be read, so no run can be told it is its own. */
export interface CorruptJob {
  queue: string;
  jobId: string;
  /** Why its data cannot be read. */
  reason: string;
}

/**
 * Every failed job of one run, in every queue under the transport's prefix, newest
 * failure first. Queues are shared by all runs, so jobs are matched on their run id.
 * BullMQ keeps the last `keepFailed` failed jobs of a queue (default 10,000).
 */
export async function failedJobsOf(
  transport: BullmqTransport,
  runId: string,
): Promise<FailedJob[]> {
  return (await readFailedJobs(transport, runId)).failed;
}

/** `failedJobsOf`, and the failed jobs of any run whose data cannot be read (`corrupt`). */
export async function readFailedJobs(
  transport: BullmqTransport,
  runId: string,
): Promise<{ failed: FailedJob[]; corrupt: CorruptJob[] }> {
  const failed: FailedJob[] = [];
  const corrupt: CorruptJob[] = [];
  for (const counts of await transport.queueCounts()) {
    if (counts.failed === 0) continue;
    await withQueue(transport, counts.queue, async (queue) => {
      for (let start = 0; start < counts.failed; start += PAGE) {
        const jobs = (await queue.getFailed(start, start + PAGE - 1)) as Job<ScoreJob>[];
        for (const job of jobs) {
          const reason = job === undefined ? undefined : corruptionOf(job);
          if (reason !== undefined) {
            corrupt.push({ queue: counts.queue, jobId: String(job.id), reason });
          } else if (job?.data?.runId === runId) failed.push(describe(counts.queue, job));
        }
        if (jobs.length < PAGE) break;
      }
    });
  }
  // ISO times sort as text; a job without one (never seen) goes last.
  failed.sort((a, b) => (b.failedAt ?? "").localeCompare(a.failedAt ?? ""));
  return { failed, corrupt };
}

/**
 * Moves failed jobs back to waiting with their attempts reset, so workers take them
 * again. The job keeps its id, so its result still lands under the same key (exactly once).
 * Returns how many were moved; a job that is no longer failed is left alone.
 */
export async function retryFailedJobs(
  transport: BullmqTransport,
  jobs: readonly FailedJob[],
): Promise<number> {
  let retried = 0;
  for (const [name, group] of groupBy(jobs, (job) => job.queue)) {
    await withQueue(transport, name, async (queue) => {
      for (const failed of group) {
        const job = await queue.getJob(failed.jobId);
        if (job === undefined || (await job.getState()) !== "failed") continue;
        await job.retry("failed", FRESH_ATTEMPTS);
        retried += 1;
      }
    });
  }
  return retried;
}

export interface RequeueOptions {
  /**
   * Of these jobs that Redis holds as completed, the ones whose result is still missing,
   * asked just before they would run again: a failed job retried a moment earlier may have
   * completed and stored its result after the caller found it missing.
   */
  stillMissing?: (jobs: readonly ScoreJob[]) => Promise<readonly ScoreJob[]>;
}

/**
 * Puts jobs whose results are missing back in their queues. A job id still held by
 * Redis as completed or failed (its row was lost, or it gave up) is moved back to waiting;
 * one that is waiting, delayed or active is left alone (counted pending, as is a completed
 * one whose result `stillMissing` finds stored after all); an unknown one is added.
 */
export async function requeueJobs(
  transport: BullmqTransport,
  jobs: readonly ScoreJob[],
  options: RequeueOptions = {},
): Promise<RequeueResult> {
  const result: RequeueResult = { enqueued: 0, pending: 0 };
  for (const [name, group] of groupBy(jobs, queueNameOf)) {
    const absent: ScoreJob[] = [];
    await withQueue(transport, name, async (queue) => {
      for (let start = 0; start < group.length; start += PAGE) {
        const page = group.slice(start, start + PAGE);
        const states = await Promise.all(page.map((job) => stateOf(queue, job)));
        const completed = page.filter((_, i) => states[i]?.kind === "completed");
        const missing = new Set(
          options.stillMissing === undefined ? completed : await options.stillMissing(completed),
        );
        for (const [i, state] of states.entries()) {
          const job = page[i] as ScoreJob;
          if (state.kind === "absent") absent.push(job);
          else if (state.kind === "pending") result.pending += 1;
          else if (state.kind === "completed" && !missing.has(job)) result.pending += 1;
          else {
            await state.job.retry(state.kind, FRESH_ATTEMPTS);
            result.enqueued += 1;
          }
        }
      }
    });
    await transport.enqueue(absent);
    result.enqueued += absent.length;
  }
  return result;
}

/**
 * Moves the run's jobs out of queues named after a spelling of their model (as older
 * versions named them) into their model's queue, where its workers take them. Only jobs
 * not running are moved; a failed one gets fresh attempts. Returns how many were moved.
 */
export async function moveSpelledQueueJobs(
  transport: BullmqTransport,
  runId: string,
): Promise<number> {
  let moved = 0;
  for (const counts of await transport.queueCounts()) {
    if (!counts.queue.startsWith("gpu-")) continue;
    const strays: Job<ScoreJob>[] = [];
    await withQueue(transport, counts.queue, async (queue) => {
      for (let start = 0; ; start += PAGE) {
        const jobs = (await queue.getJobs(
          ["waiting", "prioritized", "delayed", "failed"],
          start,
          start + PAGE - 1,
        )) as Job<ScoreJob>[];
        for (const job of jobs) {
          const model = job?.data?.runId === runId ? modelOf(job.data) : undefined;
          if (model !== undefined && isSpelledQueue(counts.queue, model)) strays.push(job);
        }
        if (jobs.length < PAGE) break;
      }
      // Added to their queue first: a crash between the two leaves a copy, never no job.
      await transport.enqueue(strays.map((job) => job.data));
      for (const job of strays) await job.remove();
      // Emptied, the queue would stay listed (and warned about) after the run: remove it.
      if (strays.length > 0 && (await isEmpty(queue))) await queue.obliterate();
    });
    moved += strays.length;
  }
  return moved;
}

/** No job of any state but completed left in the queue. */
async function isEmpty(queue: Queue<ScoreJob>): Promise<boolean> {
  const counts = await queue.getJobCounts(
    "active",
    "wait",
    "prioritized",
    "delayed",
    "failed",
    "waiting-children",
  );
  return Object.values(counts).every((count) => count === 0);
}

type JobState =
  | { kind: "absent" }
  | { kind: "pending" }
  | { kind: "completed" | "failed"; job: Job<ScoreJob> };

async function stateOf(queue: Queue<ScoreJob>, job: ScoreJob): Promise<JobState> {
  const found = await queue.getJob(jobIdOf(resultKeyOfJob(job)));
  if (found === undefined) return { kind: "absent" };
  // A job under this id whose data cannot be read is replaced by the job planned now.
  if (corruptionOf(found) !== undefined && (await found.getState()) !== "active") {
    await found.remove();
    return { kind: "absent" };
  }
  const state = await found.getState();
  if (state === "completed" || state === "failed") return { kind: state, job: found };
  return state === "unknown" ? { kind: "absent" } : { kind: "pending" };
}

function describe(queue: string, job: Job<ScoreJob>): FailedJob {
  return {
    queue,
    jobId: String(job.id),
    sampleId: job.data.sample.id,
    scorer: scorerKey(job.data.scorer),
    attemptsMade: job.attemptsMade,
    error: (job.failedReason ?? "").slice(0, ERROR_CHARS),
    failedAt: job.finishedOn === undefined ? null : new Date(job.finishedOn).toISOString(),
  };
}

async function withQueue<T>(
  transport: BullmqTransport,
  name: string,
  use: (queue: Queue<ScoreJob>) => Promise<T>,
): Promise<T> {
  const queue = new TolerantQueue(name, {
    connection: transport.redis,
    prefix: transport.queuePrefixOf(name),
  });
  try {
    return await use(queue);
  } finally {
    await queue.close();
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}
