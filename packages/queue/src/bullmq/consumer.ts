import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type ScoreJob, UnrecoverableJobError } from "@assay/core";
import { type Job, UnrecoverableError } from "bullmq";
import type { Consumer, JobHandler } from "../transport.js";
import type { ResolvedOptions } from "./options.js";
import type { RedisConnection } from "./redis-cluster.js";
import { corruptionOf, TolerantWorker } from "./tolerant-job.js";

const NEVER_ABORTED = new AbortController().signal;

/** A consumer that can stop taking jobs for a while (its store is down) and take them again. */
export interface PausableConsumer extends Consumer {
  /** Takes no more jobs; the jobs in flight run on. */
  pause(): Promise<void>;
  resume(): void;
}

/**
 * A BullMQ worker on one queue running `handler`. The job is acknowledged when the
 * handler resolves, i.e. once its result is stored. `UnrecoverableJobError` becomes
 * BullMQ's `UnrecoverableError` so the job fails at once instead of being retried.
 */
export function startConsumer(
  queueName: string,
  handler: JobHandler,
  concurrency: number,
  connection: RedisConnection,
  /** With `prefix` the queue's own (`KeyLayout.prefixOf`). */
  options: ResolvedOptions,
  onRedelivered?: (job: ScoreJob) => void,
): PausableConsumer {
  // One parameter on purpose: BullMQ builds an AbortController for every job when the
  // processor declares a third (its `length`), yet aborts it only on `Worker.cancelJob`,
  // which nothing here calls. That cost ~4 µs of CPU and its garbage per job.
  const processor = async (job: Job<ScoreJob>): Promise<void> => {
    // Set aside at once, with its id and why: no try would ever read it.
    const corrupt = corruptionOf(job);
    if (corrupt !== undefined) {
      throw new UnrecoverableError(`corrupt job ${job.id}: ${corrupt}; it cannot be scored`);
    }
    // Started before: a retry, or recovered from a worker that died or lost its lock.
    if (job.attemptsStarted > 1 || job.stalledCounter > 0) onRedelivered?.(job.data);
    // BullMQ counts the failed tries in `attemptsMade`; `attempts` is how many it makes.
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      await handler(job.data, NEVER_ABORTED, { final });
    } catch (error) {
      if (error instanceof UnrecoverableJobError) throw new UnrecoverableError(error.message);
      throw error;
    }
  };
  const worker = new TolerantWorker(queueName, processor, {
    connection,
    prefix: options.prefix,
    // Named, so `assay status` can list the live workers (Redis CLIENT LIST) and tell
    // which running jobs belong to a worker that is gone (a job records its worker's name).
    name: workerName(),
    concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    maxStalledCount: options.maxStalledCount,
    removeOnComplete: { count: options.keepCompleted },
    removeOnFail: { count: options.keepFailed },
  });
  // An unhandled "error" event would crash the process; connection errors are retried.
  worker.on("error", (error) => options.onError?.(error));
  let stopping: Promise<void> | undefined;
  return {
    // Without waiting for the jobs in flight: they are failing on the same outage.
    pause: () => worker.pause(true),
    resume: () => {
      if (stopping === undefined) worker.resume();
    },
    // close() without force stops fetching and waits for the jobs in flight to finish.
    stop: () => {
      stopping ??= worker.close();
      return stopping;
    },
  };
}

/** `host:pid:xxxx`: where the worker runs, and a tag that tells a restarted pid apart. */
function workerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(2).toString("hex")}`;
}
