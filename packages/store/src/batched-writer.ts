import { isDataError } from "./data-error.js";
import { Fifo } from "./fifo.js";
import { RejectedRowError } from "./rejected-row-error.js";
import { writeIsolating } from "./write-isolating.js";

/** One call of the write function, as `onWrite` sees it. */
export interface WriteObservation<R> {
  /** Rows in this call: a whole batch, or part of one being split to isolate refused rows. */
  rows: number;
  seconds: number;
  /** What the write function returned; absent when it threw. */
  result?: R;
}

export interface BatchedWriterOptions<R = unknown> {
  /** Rows per flush; a full batch flushes at once. Default 1000. */
  maxBatch?: number;
  /** Longest a buffered row waits for its batch to fill, in ms. Default 20. */
  maxDelayMs?: number;
  /**
   * Which write errors are the rows' fault: a batch failing with one is split until the
   * refused rows stand alone (see `writeIsolating`). Default `isDataError` (Postgres data
   * exceptions).
   */
  isRowError?: (error: unknown) => boolean;
  /**
   * Called after every call of the write function, failed or not, e.g. to time flushes
   * and count what they stored. Must not throw.
   */
  onWrite?: (write: WriteObservation<R>) => void;
}

export interface BatchedWriterStats {
  /** Rows whose flush succeeded. */
  rows: number;
  /** Rows the store refused for what they hold (their `add()` rejected with RejectedRowError). */
  refused: number;
  flushes: number;
  failedFlushes: number;
  lastFlushMs: number;
  /** Rows buffered or being flushed now. */
  pending: number;
}

/**
 * The rows of one `add()` or `addAll()` call, waiting for their batches: one object per
 * call, not per row, so a caller that adds a thousand rows at once allocates one promise
 * for them (per-row promises were ~0.3 KB of each sample `assay run` kept past a young
 * collection).
 */
interface Ticket<T> {
  /** From `add()`: one row, `one`. From `addAll()`: `many`. Let go once buffered. */
  single: boolean;
  one: T | undefined;
  many: readonly T[] | undefined;
  /** When the rows were buffered, for `maxDelayMs`. */
  addedAt: number;
  /** Rows in the call. */
  rows: number;
  /** Rows not written yet: the call's rows are buffered and written in order, so the next
   * one written is its row `rows - unwritten`. */
  unwritten: number;
  /** Row index within the call → why it was not stored; made on the first failure. */
  failures: Map<number, unknown> | undefined;
  /** `addAll()`'s gets the failures; `add()`'s nothing, its `reject` the row's failure. */
  resolve: (failures: RowFailures) => void;
  reject: (error: unknown) => void;
}

/** Rows of `addAll()` that were not stored, by their index in the array added. */
export type RowFailures = ReadonlyMap<number, unknown>;

const NO_FAILURES: RowFailures = new Map();

/**
 * Collects items from many concurrent producers and writes them in batches, one flush at
 * a time. `add()` resolves only once the item's batch is stored, so a queue job can ack
 * after it; producers that run too far ahead wait (backpressure) instead of growing the
 * buffer without bound. A row the store refuses for what it holds fails alone: its
 * `add()` rejects with a RejectedRowError (an UnrecoverableJobError) and the rest of its
 * batch is stored.
 */
export class BatchedWriter<T, R = unknown> {
  readonly #write: (items: T[]) => Promise<R>;
  readonly #maxBatch: number;
  readonly #maxDelayMs: number;
  readonly #isRowError: (error: unknown) => boolean;
  // The buffered rows, each with the call that added it: parallel arrays, so a buffered
  // row costs no object of its own.
  #items: T[] = [];
  #tickets: Ticket<T>[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<unknown> | undefined;
  #inFlightCount = 0;
  readonly #spaceWaiters = new Fifo<() => void>();
  #closed = false;
  readonly #stats = { rows: 0, refused: 0, flushes: 0, failedFlushes: 0, lastFlushMs: 0 };

  constructor(write: (items: T[]) => Promise<R>, options: BatchedWriterOptions<R> = {}) {
    this.#write = options.onWrite === undefined ? write : observed(write, options.onWrite);
    this.#maxBatch = positiveInteger("maxBatch", options.maxBatch ?? 1000);
    this.#maxDelayMs = nonNegative("maxDelayMs", options.maxDelayMs ?? 20);
    this.#isRowError = options.isRowError ?? isDataError;
  }

  get stats(): BatchedWriterStats {
    return { ...this.#stats, pending: this.#pending() };
  }

  /**
   * Resolves once the item is stored; rejects with a RejectedRowError when the store
   * refused this row, or with the error of its failed batch.
   */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#enter(ticket(true, item, undefined, 1, () => resolve(), reject));
    });
  }

  /**
   * Adds the items in order and resolves once every one is written, to the failures by
   * index: a RejectedRowError for a row the store refused, the batch's error for a row
   * whose batch failed. Empty when all were stored. Rejects only when the writer is
   * closed. Batches may split the items; one call waits for room once, and may take the
   * buffer past its bound by the items it adds.
   */
  addAll(items: readonly T[]): Promise<RowFailures> {
    if (items.length === 0) return Promise.resolve(NO_FAILURES);
    return new Promise((resolve, reject) => {
      this.#enter(ticket(false, undefined, items, items.length, resolve, reject));
    });
  }

  #enter(ticket: Ticket<T>): void {
    // Waiters queue up in order; each one woken passes the turn on while there is room,
    // so a flush wakes only as many producers as it made room for.
    if (this.#isFull() || this.#spaceWaiters.size > 0) {
      this.#spaceWaiters.push(() => this.#buffered(ticket));
    } else this.#buffered(ticket);
  }

  #buffered(ticket: Ticket<T>): void {
    if (this.#closed) {
      this.#wakeNextWaiter();
      ticket.reject(new Error("BatchedWriter: add() after close()"));
      return;
    }
    ticket.addedAt = Date.now();
    if (ticket.single) {
      this.#items.push(ticket.one as T);
      this.#tickets.push(ticket);
    } else {
      const many = ticket.many as readonly T[];
      for (let slot = 0; slot < many.length; slot += 1) {
        this.#items.push(many[slot] as T);
        this.#tickets.push(ticket);
      }
    }
    ticket.one = undefined;
    ticket.many = undefined;
    this.#schedule();
    this.#wakeNextWaiter();
  }

  /**
   * Writes everything added so far; rejects if any of those batches failed. Refused rows
   * do not count as a failure: their own `add()` reports them.
   */
  async flush(): Promise<void> {
    let failure: unknown;
    while (this.#inFlight !== undefined || this.#items.length > 0) {
      if (this.#inFlight === undefined) this.#startFlush();
      const error = await this.#inFlight;
      if (error !== undefined) failure = error;
    }
    if (failure !== undefined) throw failure;
  }

  /** Flushes, then refuses further rows. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeNextWaiter(); // waiting producers get their rejection now
    await this.flush();
    clearTimeout(this.#timer);
  }

  #pending(): number {
    return this.#items.length + this.#inFlightCount;
  }

  #isFull(): boolean {
    return !this.#closed && this.#pending() > 4 * this.#maxBatch;
  }

  #wakeNextWaiter(): void {
    if (!this.#isFull()) this.#spaceWaiters.shift()?.();
  }

  /** Flushes now if a batch is due, else makes sure a timer will. */
  #schedule(): void {
    const oldest = this.#tickets[0];
    if (this.#inFlight !== undefined || oldest === undefined) return;
    const waited = Date.now() - oldest.addedAt;
    if (this.#items.length >= this.#maxBatch || waited >= this.#maxDelayMs) {
      this.#startFlush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#schedule();
      }, this.#maxDelayMs - waited);
    }
  }

  /** Starts one flush; its promise resolves to the error (or undefined), never rejects. */
  #startFlush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const count = Math.min(this.#maxBatch, this.#items.length);
    const items = this.#items.splice(0, count);
    const tickets = this.#tickets.splice(0, count);
    this.#inFlightCount = count;
    this.#inFlight = this.#writeBatch(items, tickets).finally(() => {
      this.#inFlight = undefined;
      this.#inFlightCount = 0;
      this.#schedule();
      this.#wakeNextWaiter();
    });
  }

  async #writeBatch(items: T[], tickets: Ticket<T>[]): Promise<unknown> {
    const started = performance.now();
    try {
      const failures = await writeIsolating(items, this.#write, this.#isRowError);
      let failure: unknown;
      for (let index = 0; index < tickets.length; index += 1) {
        const ticket = tickets[index] as Ticket<T>;
        const error = failures.size === 0 ? undefined : failures.get(index);
        if (error !== undefined) {
          ticket.failures ??= new Map();
          ticket.failures.set(ticket.rows - ticket.unwritten, error);
          if (error instanceof RejectedRowError) this.#stats.refused += 1;
          else failure ??= error;
        }
        ticket.unwritten -= 1;
        if (ticket.unwritten === 0) settle(ticket);
      }
      this.#stats.rows += items.length - failures.size;
      if (failure !== undefined) this.#stats.failedFlushes += 1;
      return failure;
    } finally {
      this.#stats.flushes += 1;
      this.#stats.lastFlushMs = performance.now() - started;
    }
  }
}

/** A call's ticket; its time is set when its rows are buffered. */
function ticket<T>(
  single: boolean,
  one: T | undefined,
  many: readonly T[] | undefined,
  rows: number,
  resolve: Ticket<T>["resolve"],
  reject: Ticket<T>["reject"],
): Ticket<T> {
  return {
    single,
    one,
    many,
    addedAt: 0,
    rows,
    unwritten: rows,
    failures: undefined,
    resolve,
    reject,
  };
}

/** Ends a call whose rows are all written or failed. */
function settle<T>(ticket: Ticket<T>): void {
  const { failures } = ticket;
  if (failures === undefined) ticket.resolve(NO_FAILURES);
  // An `add()` rejects with its row's failure (its row is slot 0).
  else if (ticket.single) ticket.reject(failures.get(0));
  else ticket.resolve(failures);
}

/** `write`, reporting each call to `onWrite` once it settles. */
function observed<T, R>(
  write: (items: T[]) => Promise<R>,
  onWrite: (write: WriteObservation<R>) => void,
): (items: T[]) => Promise<R> {
  return async (items) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let result: R;
    try {
      result = await write(items);
    } catch (error) {
      onWrite({ rows: items.length, seconds: seconds() });
      throw error;
    }
    onWrite({ rows: items.length, seconds: seconds(), result });
    return result;
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`Expected \`${name}\` to be an integer from 1 and up, got \`${value}\``);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new TypeError(`Expected \`${name}\` to be a number from 0 and up, got \`${value}\``);
  }
  return value;
}
