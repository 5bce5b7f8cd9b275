import type { BullmqTransport } from "@assay/queue";
import type { Store } from "@assay/store";

export interface WaitForRunOptions {
  /** How often to count stored results, in ms. Default 1000. */
  pollMs?: number;
  onTick?: (done: number) => void;
  /** Stops waiting (the run goes on in the workers). */
  signal?: AbortSignal;
  /**
   * Jobs still to run in the run's queues (waiting, active, delayed), of every run that
   * shares them. With it, the wait ends with `JobsGoneError` once results can no longer
   * arrive: stored plus these fall short of planned (failed jobs, or jobs Redis lost).
   */
  unfinishedJobs?: () => Promise<number>;
  /** How often to compare stored and queued with planned, in ms. Default 5000. */
  checkJobsMs?: number;
}

/** The run's missing results are neither stored nor queued: nothing will bring them. */
export class JobsGoneError extends Error {
  override name = "JobsGoneError";
  constructor(
    readonly planned: number,
    readonly stored: number,
    readonly unfinished: number,
  ) {
    super(
      `${planned - stored} of the run's ${planned} results can no longer arrive: ` +
        `${stored} are stored and ${unfinished} jobs are queued or running`,
    );
  }
}

/**
 * Waits until every planned result row of the run is stored. Returns false when `signal`
 * ended the wait first.
 */
export async function waitForRun(
  store: Store,
  runId: string,
  planned: number,
  options: WaitForRunOptions = {},
): Promise<boolean> {
  const pollMs = options.pollMs ?? 1000;
  const checkJobsMs = options.checkJobsMs ?? 5000;
  let lastCheck = Date.now();
  let shortBefore = false;
  for (;;) {
    // Jobs are counted before results: a job leaves the queue only after its row is
    // stored, so one that finishes between the two counts is counted twice, never missed.
    const checkJobs = options.unfinishedJobs !== undefined && Date.now() - lastCheck >= checkJobsMs;
    const unfinished = checkJobs ? await options.unfinishedJobs?.() : undefined;
    const done = await store.countResults(runId);
    options.onTick?.(done);
    if (done >= planned) return true;
    if (unfinished !== undefined) {
      lastCheck = Date.now();
      // Twice in a row, a check apart: a job being moved between states is not lost.
      const short = done + unfinished < planned;
      if (short && shortBefore) throw new JobsGoneError(planned, done, unfinished);
      shortBefore = short;
    }
    if (options.signal?.aborted === true) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Jobs waiting, running or waiting for a retry in every queue under the transport's prefix. */
export async function unfinishedJobs(transport: BullmqTransport): Promise<number> {
  const counts = await transport.queueCounts();
  return counts.reduce((sum, queue) => sum + queue.waiting + queue.active + queue.delayed, 0);
}
