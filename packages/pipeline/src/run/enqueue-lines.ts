import type { ScoreJob } from "@assay/core";
import type { Transport } from "@assay/queue";
import type { Store } from "@assay/store";
import type { PlannedLine } from "./store-lines.js";

/** Where produced jobs go: a transport, or anything else that takes jobs the same way. */
export type JobQueue = Pick<Transport, "enqueue">;

/** What the stored lines came to so far, in `ProduceProgress` terms. */
export interface EnqueueCounts {
  samples: number;
  planned: number;
  enqueued: number;
  skipped: number;
}

export interface LineEnqueuerOptions {
  store: Store;
  runId: string;
  /** Nothing of the run is stored yet: every planned job goes, without a key built for each. */
  newRun: boolean;
  queue: JobQueue;
}

/** Enqueues the jobs of stored lines whose results are not stored yet, and counts them. */
export class LineEnqueuer {
  readonly counts: EnqueueCounts = { samples: 0, planned: 0, enqueued: 0, skipped: 0 };
  /** Planned jobs that call a model (the GPU pool): none means the verifier cost nothing. */
  plannedModelJobs = 0;
  readonly #options: LineEnqueuerOptions;
  #reopened = false;

  constructor(options: LineEnqueuerOptions) {
    this.#options = options;
  }

  async enqueue(lines: readonly PlannedLine[]): Promise<void> {
    const { store, runId, newRun, queue } = this.#options;
    const planned: ScoreJob[] = [];
    let samples = 0;
    for (const line of lines) {
      samples += line.samples.length;
      for (const job of line.jobs) {
        planned.push(job);
        if (job.pool !== "cpu") this.plannedModelJobs += 1;
      }
    }
    const jobs = newRun ? planned : await store.missingJobs(runId, planned);
    this.counts.samples += samples;
    this.counts.planned += planned.length;
    this.counts.skipped += planned.length - jobs.length;
    // Results of a run that finished are missing again: it finishes anew once they are
    // stored (completeRun records when), not at the time it first finished.
    if (jobs.length > 0 && !newRun && !this.#reopened) {
      this.#reopened = true;
      await store.reopenRun(runId);
    }
    await queue.enqueue(jobs);
    this.counts.enqueued += jobs.length;
  }
}
