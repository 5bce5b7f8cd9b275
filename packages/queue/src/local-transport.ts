import type { Pool, ScoreJob } from "@assay/core";
import type { ConsumeOptions, Consumer, JobAttempt, JobHandler, Transport } from "./transport.js";

/**
 * Processes jobs handed over together; resolves once all are done (stored). Rejecting
 * fails the run, as one job's handler rejecting does.
 */
export type BatchJobHandler = (
  jobs: ScoreJob[],
  signal: AbortSignal,
  attempt?: JobAttempt,
) => Promise<void>;

export interface ConsumeBatchesOptions extends ConsumeOptions {
  /** Most jobs handed to one call of the handler. */
  maxBatch: number;
}

export interface LocalTransportOptions {
  /** Queued jobs per pool above which `enqueue` waits. Default 4096. */
  highWaterMark?: number;
}

interface PoolState {
  queue: ScoreJob[];
  head: number;
  inFlight: number;
  consumer?: PoolConsumer;
  /** What a handled job's promise calls: made once per pool, not twice per job. */
  settled: () => void;
  failed: (error: unknown) => void;
}

/** A pool's consumer: jobs go to `handler` one at a time, or up to `maxBatch` at once. */
type PoolConsumer = { concurrency: number; stopping: boolean } & (
  | { handler: JobHandler; maxBatch?: undefined }
  | { handler: BatchJobHandler; maxBatch: number }
);

/**
 * In-process transport for the embedded default. Jobs live in memory only: a crash loses
 * the queue, and rerunning the same run id re-plans whatever is not stored yet.
 * The first handler error stops the run: `drain()` rejects with it.
 */
export class LocalTransport implements Transport {
  readonly kind = "local" as const;
  readonly #highWaterMark: number;
  readonly #pools = new Map<Pool, PoolState>();
  readonly #abort = new AbortController();
  #waiters: Array<() => void> = [];
  #failure: unknown;

  constructor(options: LocalTransportOptions = {}) {
    this.#highWaterMark = options.highWaterMark ?? 4096;
  }

  async enqueue(jobs: readonly ScoreJob[]): Promise<void> {
    const touched = new Set<Pool>();
    for (const job of jobs) {
      this.#throwIfFailed();
      const state = this.#pool(job.pool);
      if (state.consumer === undefined) {
        throw new Error(`No consumer for the ${job.pool} pool: start one before enqueuing`);
      }
      state.queue.push(job);
      touched.add(job.pool);
      // Handed over when the call's jobs are queued, or when the queue is full: a batch
      // consumer then gets them together, not one batch per job.
      if (this.#queued(state) < this.#highWaterMark) continue;
      this.#pump(job.pool);
      // A stopped consumer takes nothing more: waiting for room would never end.
      while (
        this.#queued(state) >= this.#highWaterMark &&
        this.#failure === undefined &&
        state.consumer?.stopping !== true
      ) {
        await this.#nextChange();
      }
    }
    for (const pool of touched) this.#pump(pool);
  }

  consume(pool: Pool, handler: JobHandler, options: ConsumeOptions): Consumer {
    return this.#start(pool, { handler, concurrency: options.concurrency, stopping: false });
  }

  /**
   * Like `consume`, but hands the handler up to `maxBatch` queued jobs at once (never more
   * than `concurrency` in flight), so work that costs a promise per call (a batch of rows
   * to store) costs one per batch. Only in-process: a queue hands jobs over one by one.
   */
  consumeBatches(pool: Pool, handler: BatchJobHandler, options: ConsumeBatchesOptions): Consumer {
    positiveInteger("maxBatch", options.maxBatch);
    return this.#start(pool, {
      handler,
      maxBatch: options.maxBatch,
      concurrency: options.concurrency,
      stopping: false,
    });
  }

  #start(pool: Pool, consumer: PoolConsumer): Consumer {
    positiveInteger("concurrency", consumer.concurrency);
    const state = this.#pool(pool);
    state.consumer = consumer;
    this.#pump(pool);
    return {
      stop: async () => {
        if (state.consumer !== undefined) state.consumer.stopping = true;
        this.#notify();
        while (state.inFlight > 0) await this.#nextChange();
      },
    };
  }

  /** Resolves when every enqueued job has been handled; rejects on the first failure. */
  async drain(): Promise<void> {
    while (this.#failure === undefined && !this.#isIdle()) await this.#nextChange();
    this.#throwIfFailed();
  }

  async close(): Promise<void> {
    this.#abort.abort();
  }

  #pump(pool: Pool): void {
    const state = this.#pool(pool);
    const consumer = state.consumer;
    if (consumer === undefined) return;
    while (
      !consumer.stopping &&
      this.#failure === undefined &&
      state.inFlight < consumer.concurrency &&
      this.#queued(state) > 0
    ) {
      if (consumer.maxBatch === undefined) {
        const job = state.queue[state.head] as ScoreJob;
        state.head += 1;
        this.#compact(state);
        state.inFlight += 1;
        consumer.handler(job, this.#abort.signal).then(state.settled, state.failed);
        continue;
      }
      const count = Math.min(
        consumer.maxBatch,
        consumer.concurrency - state.inFlight,
        this.#queued(state),
      );
      const batch = state.queue.slice(state.head, state.head + count);
      state.head += count;
      this.#compact(state);
      state.inFlight += count;
      const settled = () => this.#settle(pool, count);
      const failed = (error: unknown) => {
        this.#failure ??= error;
        this.#settle(pool, count);
      };
      consumer.handler(batch, this.#abort.signal).then(settled, failed);
    }
  }

  #settle(pool: Pool, jobs = 1): void {
    this.#pool(pool).inFlight -= jobs;
    this.#pump(pool);
    this.#notify();
  }

  #queued(state: PoolState): number {
    return state.queue.length - state.head;
  }

  // Drop handed-out jobs now and then so a long run's queue array stays small.
  #compact(state: PoolState): void {
    if (state.head > 1024 && state.head * 2 > state.queue.length) {
      state.queue = state.queue.slice(state.head);
      state.head = 0;
    }
  }

  #isIdle(): boolean {
    for (const state of this.#pools.values()) {
      if (state.inFlight > 0 || this.#queued(state) > 0) return false;
    }
    return true;
  }

  #pool(pool: Pool): PoolState {
    let state = this.#pools.get(pool);
    if (state === undefined) {
      state = {
        queue: [],
        head: 0,
        inFlight: 0,
        settled: () => this.#settle(pool),
        failed: (error: unknown) => {
          this.#failure ??= error;
          this.#settle(pool);
        },
      };
      this.#pools.set(pool, state);
    }
    return state;
  }

  #nextChange(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`Expected \`${name}\` to be an integer from 1 and up, got ${value}`);
  }
}
