import { hostname } from "node:os";
import type { ModelQueue, ProducerRecord, ProducerState, Store } from "@assay/store";
import type { ProduceProgress } from "./progress.js";

/** How often a producer records its progress, alive or not moving (backpressure). */
export const HEARTBEAT_MS = 5_000;

/**
 * A producer silent this long is taken for gone: six heartbeats missed. A loaded Postgres
 * may delay a write by seconds, never by half a minute.
 */
export const PRODUCER_SILENT_S = 30;

export interface ProducerHeartbeatOptions {
  store: Pick<Store, "recordProducer">;
  runId: string;
  queuePrefix: string;
  /** The command that resumes the run, as `assay status` prints it. */
  resumeCommand: string;
  modelQueues: ModelQueue[];
  /** The dataset's size as stored. */
  bytesTotal: number;
  intervalMs?: number;
}

/**
 * What a producer tells the store about itself (`Store.recordProducer`): its read, every
 * `intervalMs` at most (however often progress comes) and at least (a read held up by
 * backpressure is still a live producer), then how it ended. `assay status` computes the
 * share read and an ETA from it, and names a producer that stopped heartbeating. A record
 * that cannot be written is skipped: the producer's own writes fail on the same outage and
 * end it with the reason.
 */
export class ProducerHeartbeat {
  readonly #options: ProducerHeartbeatOptions;
  readonly #startedAt = new Date();
  readonly #timer: NodeJS.Timeout;
  #progress: Pick<ProduceProgress, "bytesRead" | "enqueued" | "inputErrors">;
  #lastWrite = 0;
  /** One write at a time, in order: a late write never overwrites a newer state. */
  #writing: Promise<void> = Promise.resolve();
  #ended = false;

  private constructor(options: ProducerHeartbeatOptions) {
    this.#options = options;
    this.#progress = { bytesRead: 0, enqueued: 0, inputErrors: 0 };
    this.#timer = setInterval(() => this.#write("reading"), options.intervalMs ?? HEARTBEAT_MS);
    // The heartbeat never keeps a finished process alive.
    this.#timer.unref();
  }

  /** Starts beating; resolves once the first record is stored (it fails if that fails). */
  static async start(options: ProducerHeartbeatOptions): Promise<ProducerHeartbeat> {
    const heartbeat = new ProducerHeartbeat(options);
    try {
      await options.store.recordProducer(heartbeat.#record("reading", null));
    } catch (error) {
      clearInterval(heartbeat.#timer);
      throw error;
    }
    heartbeat.#lastWrite = Date.now();
    return heartbeat;
  }

  /** The read moved: recorded now if the last record is `intervalMs` old. */
  update(progress: ProduceProgress): void {
    this.#progress = progress;
    if (Date.now() - this.#lastWrite >= (this.#options.intervalMs ?? HEARTBEAT_MS)) {
      this.#write("reading");
    }
  }

  /** Records how the producer ended and stops beating. Never rejects. */
  async end(state: Exclude<ProducerState, "reading">, reason: string | null = null): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    await this.#write(state, reason);
  }

  #write(state: ProducerState, reason: string | null = null): Promise<void> {
    if (this.#ended && state === "reading") return this.#writing;
    this.#lastWrite = Date.now();
    const record = this.#record(state, reason);
    this.#writing = this.#writing
      .then(() => this.#options.store.recordProducer(record))
      .catch(() => {});
    return this.#writing;
  }

  #record(state: ProducerState, reason: string | null): ProducerRecord {
    const options = this.#options;
    return {
      runId: options.runId,
      producer: `${hostname()}:${process.pid}`,
      queuePrefix: options.queuePrefix,
      resumeCommand: options.resumeCommand,
      modelQueues: options.modelQueues,
      state,
      reason,
      startedAt: this.#startedAt,
      readSeconds: (Date.now() - this.#startedAt.getTime()) / 1000,
      bytesRead: this.#progress.bytesRead,
      bytesTotal: options.bytesTotal,
      jobsEnqueued: this.#progress.enqueued,
      inputErrors: this.#progress.inputErrors,
    };
  }
}
