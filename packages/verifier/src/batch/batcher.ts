import { type BatchLimits, nextBatchSize } from "./plan-batches.js";

export interface BatcherOptions extends BatchLimits {
  /** How long a partial batch waits for more requests, in ms. Default 2. */
  maxWaitMs?: number;
}

export interface BatchedResult<Out> {
  output: Out;
  /** This row's share of the batch's wall time, by real tokens. */
  computeMs: number;
  /** This row's share of the pass: 1 over the rows in it, so a pass's shares add up to 1. */
  passShare: number;
}

export interface BatchRecord {
  lengths: number[];
  ms: number;
}

export interface BatchStats {
  batches: number;
  rows: number;
  realTokens: number;
  computedTokens: number;
  computeMs: number;
}

type RunBatch<Out> = (rows: readonly (readonly number[])[]) => Promise<Out[]>;

interface Pending<Out> {
  ids: readonly number[];
  resolve: (result: BatchedResult<Out>) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups concurrent requests into forward passes: one batch runs at a time; the next one
 * takes the longest pending rows that fit the token budget (length-sorted, so padding
 * stays small). A partial batch waits at most `maxWaitMs` for company. Each row's result
 * depends only on its own ids.
 */
export class Batcher<Out> {
  readonly #run: RunBatch<Out>;
  readonly #options: BatcherOptions;
  #pending: Pending<Out>[] = [];
  #pendingTokens = 0;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #stats: BatchStats = {
    batches: 0,
    rows: 0,
    realTokens: 0,
    computedTokens: 0,
    computeMs: 0,
  };
  /** Called after each batch (for benchmarks that replay the same composition). */
  onBatch: ((record: BatchRecord, rows: readonly (readonly number[])[]) => void) | undefined;

  constructor(run: RunBatch<Out>, options: BatcherOptions = {}) {
    this.#run = run;
    this.#options = options;
  }

  submit(ids: readonly number[]): Promise<BatchedResult<Out>> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ ids, resolve, reject });
      this.#pendingTokens += ids.length;
      this.#schedule();
    });
  }

  stats(): BatchStats {
    return { ...this.#stats };
  }

  #schedule(): void {
    if (this.#running || this.#pending.length === 0) return;
    if (this.#hasFullBatch()) {
      this.#clearTimer();
      void this.#runNext();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#runNext();
      }, this.#options.maxWaitMs ?? 2);
    }
  }

  #hasFullBatch(): boolean {
    const budget = this.#options.maxBatchTokens ?? 16_384;
    const rows = this.#options.maxBatchRows ?? 64;
    return this.#pendingTokens >= budget || this.#pending.length >= rows;
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #runNext(): Promise<void> {
    if (this.#running || this.#pending.length === 0) return;
    this.#running = true;
    this.#pending.sort((a, b) => b.ids.length - a.ids.length);
    const size = nextBatchSize(
      this.#pending.map((p) => p.ids.length),
      this.#options,
    );
    const batch = this.#pending.splice(0, size);
    const rows = batch.map((p) => p.ids);
    const real = rows.reduce((sum, r) => sum + r.length, 0);
    this.#pendingTokens -= real;
    const started = performance.now();
    try {
      const outputs = await this.#run(rows);
      const ms = performance.now() - started;
      this.#record(rows, real, ms);
      batch.forEach((p, i) => {
        p.resolve({
          output: outputs[i] as Out,
          computeMs: (ms * p.ids.length) / real,
          passShare: 1 / batch.length,
        });
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.#running = false;
      // Requests that arrived during the pass already waited: run them without a deadline.
      if (this.#pending.length > 0) void this.#runNext();
    }
  }

  #record(rows: readonly (readonly number[])[], real: number, ms: number): void {
    const longest = Math.max(...rows.map((r) => r.length));
    this.#stats.batches += 1;
    this.#stats.rows += rows.length;
    this.#stats.realTokens += real;
    this.#stats.computedTokens += longest * rows.length;
    this.#stats.computeMs += ms;
    this.onBatch?.({ lengths: rows.map((r) => r.length), ms }, rows);
  }
}
