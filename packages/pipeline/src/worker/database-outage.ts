import { setTimeout as sleep } from "node:timers/promises";
import { isConnectionLost } from "@assay/store";
import type { Logger } from "../logger.js";
import { ServiceOutage } from "./service-outage.js";

export interface DatabaseOutageOptions {
  /** Resolves once the database answers again. */
  ping: () => Promise<void>;
  /** Stop taking jobs: each one taken now would fail on the same outage. */
  pause: () => Promise<void>;
  resume: () => void;
  log: Logger;
  /** The database, as the log lines name it ("Postgres at postgres://db/assay"). */
  database: string;
  /** Aborted on shutdown: stop reconnecting, stay paused. */
  signal: AbortSignal;
  /** First wait before reconnecting; doubles up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** While the database stays gone, its warning comes again at most this often (30 s). */
  repeatMs?: number;
}

/**
 * A worker's view of its database: up, or gone. The first job that fails because the
 * server is out of reach turns it to gone: the worker stops taking jobs, says so once
 * (again every 30 s while it lasts), and reconnects with backoff; when the server answers
 * it says so once more, with the outage's length, and takes jobs again. The jobs that
 * failed go back to the queue (BullMQ's retry), so each outage costs them one attempt,
 * and the idempotent writer absorbs any that had stored their row before the failure
 * was seen.
 */
export class DatabaseOutage {
  readonly #options: DatabaseOutageOptions;
  /** Its lines and counts, for the logs, the metrics and the health endpoint. */
  readonly service: ServiceOutage;
  #recovering: Promise<void> | undefined;

  constructor(options: DatabaseOutageOptions) {
    this.#options = options;
    this.service = new ServiceOutage({
      service: "postgres",
      name: options.database,
      log: options.log,
      meanwhile: "taking no jobs, reconnecting with backoff",
      afterwards: "taking jobs again",
      ...(options.repeatMs !== undefined && { repeatMs: options.repeatMs }),
    });
  }

  /** True while the database is gone and the worker takes no jobs. */
  get down(): boolean {
    return this.#recovering !== undefined;
  }

  /**
   * Looks at a job's failure: true when it says the database is out of reach (the job
   * will be retried; the first such failure starts reconnecting), false otherwise.
   */
  noticed(error: unknown): boolean {
    if (!isConnectionLost(error)) return false;
    this.service.failed(reasonOf(error));
    if (this.#recovering === undefined) {
      this.#recovering = this.#recover().finally(() => {
        this.#recovering = undefined;
      });
    }
    return true;
  }

  /** Resolves when no reconnection is under way (it ends early on shutdown). */
  async settled(): Promise<void> {
    await this.#recovering;
  }

  async #recover(): Promise<void> {
    const { ping, pause, resume, signal } = this.#options;
    await pause().catch(() => {});
    let delay = this.#options.firstDelayMs ?? 500;
    const maxDelay = this.#options.maxDelayMs ?? 30_000;
    for (;;) {
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return; // shutting down: the jobs left in the queue wait for another worker
      }
      try {
        await ping();
        break;
      } catch (error) {
        this.service.failed(reasonOf(error));
        delay = Math.min(delay * 2, maxDelay);
      }
    }
    this.service.back();
    resume();
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
