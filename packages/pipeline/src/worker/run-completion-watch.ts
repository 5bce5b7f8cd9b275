import type { RunCompletion } from "../run/complete-run.js";

export interface RunCompletionWatchOptions {
  /** Completes the run if it is complete (`completeRun`, not waiting for another completer). */
  complete: (runId: string) => Promise<RunCompletion>;
  /** Called once per run this worker completed. */
  onCompleted: (runId: string) => void;
  /** Called when a check fails; the run is left to the next check, or to `assay status`. */
  onError: (runId: string, error: unknown) => void;
  /** How long the worker must have had no job in flight before it looks. Default 1 s. */
  idleMs?: number;
  /** How often a worker that is never idle looks. Default 60 s. */
  busyMs?: number;
}

/**
 * Lets the worker that stores a run's last result complete the run, so a night needs
 * nobody to run `assay status`. A worker cannot tell which result is the last, so it looks
 * at the runs it stored results for since it last looked: once it has had no job in flight
 * for a second (the end of a run is quiet), and every minute while it stays busy (another
 * run's jobs keep it so). Whoever stores the last row looks after it is stored, so the run
 * is completed. Each look costs a read of the run and, once its plan is known, a count of
 * its results; `completeRun` makes sure one process completes it, whoever else looks.
 */
export class RunCompletionWatch {
  readonly #options: RunCompletionWatchOptions;
  readonly #touched = new Set<string>();
  #inFlight = 0;
  #idle: NodeJS.Timeout | undefined;
  readonly #busy: NodeJS.Timeout;
  #looking: Promise<void> | undefined;
  #stopped = false;

  constructor(options: RunCompletionWatchOptions) {
    this.#options = options;
    this.#busy = setInterval(() => this.#look(), options.busyMs ?? 60_000);
    this.#busy.unref();
  }

  jobStarted(): void {
    this.#inFlight += 1;
    clearTimeout(this.#idle);
  }

  /** A job ended; `runId` when it stored its result. */
  jobEnded(runId?: string): void {
    this.#inFlight -= 1;
    if (runId !== undefined) this.#touched.add(runId);
    if (this.#inFlight === 0) this.#whenIdle();
  }

  /**
   * Stops looking; resolves once a look in progress (a completion, perhaps) has ended and
   * the runs stored since the last look were looked at once more: a worker drained right
   * after storing a run's last result (a scale-down, a deploy) still completes that run.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#idle);
    clearInterval(this.#busy);
    await this.#looking;
    if (this.#touched.size === 0) return;
    const runs = [...this.#touched];
    this.#touched.clear();
    await this.#lookAt(runs);
  }

  #whenIdle(): void {
    clearTimeout(this.#idle);
    if (this.#touched.size === 0 || this.#stopped) return;
    this.#idle = setTimeout(() => this.#look(), this.#options.idleMs ?? 1000);
    this.#idle.unref();
  }

  #look(): void {
    if (this.#looking !== undefined || this.#stopped || this.#touched.size === 0) return;
    const runs = [...this.#touched];
    this.#touched.clear();
    this.#looking = this.#lookAt(runs).finally(() => {
      this.#looking = undefined;
      // Results stored while it looked: look again once idle.
      if (this.#inFlight === 0) this.#whenIdle();
    });
  }

  async #lookAt(runs: readonly string[]): Promise<void> {
    for (const runId of runs) {
      try {
        const completion = await this.#options.complete(runId);
        if (completion.state === "completed" && completion.here) {
          this.#options.onCompleted(runId);
        }
      } catch (error) {
        this.#options.onError(runId, error);
      }
    }
  }
}
