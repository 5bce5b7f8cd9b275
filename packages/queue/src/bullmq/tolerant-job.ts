import type { ScoreJob } from "@assay/core";
import { Job, type JobJson, Queue, Worker } from "bullmq";

/** The data a job is read with when its own cannot be read (not JSON): why not. */
export interface CorruptData {
  corrupt: string;
}

/**
 * A BullMQ job read from Redis, whose data may turn out not to be JSON (a job written by
 * hand, or damaged): BullMQ would throw reading it, so a worker that takes it could never
 * fail it (it stayed active) and every look at its queue (`assay status`) failed. Read here,
 * it has `CorruptData` instead, which a worker fails at once with its id and the reason,
 * and `assay status` reports.
 */
export class TolerantJob<T = ScoreJob> extends Job<T> {
  static override fromJSON<T = unknown, R = unknown, N extends string = string>(
    queue: Parameters<typeof Job.fromJSON>[0],
    json: JobJson,
    jobId?: string,
  ): Job<T, R, N> {
    try {
      return Job.fromJSON<T, R, N>(queue, json, jobId);
    } catch (error) {
      const job = Job.fromJSON<T, R, N>(queue, { ...json, data: "{}" }, jobId);
      const reason = error instanceof Error ? error.message : String(error);
      (job as Job<unknown, R, N>).data = {
        corrupt: `its data is not JSON (${reason})`,
      } satisfies CorruptData;
      return job;
    }
  }
}

/** Why the job's data could not be read; undefined for a job read whole. */
export function corruptionOf(job: Job<unknown>): string | undefined {
  const data = job.data as Partial<CorruptData> | null | undefined;
  return typeof data?.corrupt === "string" && Object.keys(data).length === 1
    ? data.corrupt
    : undefined;
}

/** A queue whose jobs are read as `TolerantJob`s. */
export class TolerantQueue extends Queue<ScoreJob> {
  protected override get Job(): typeof Job {
    return TolerantJob as typeof Job;
  }
}

/** A worker that takes `TolerantJob`s: a corrupt job reaches its processor, which fails it. */
export class TolerantWorker extends Worker<ScoreJob, void> {
  protected override get Job(): typeof Job {
    return TolerantJob as typeof Job;
  }
}
