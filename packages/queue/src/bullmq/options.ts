import { DEFAULT_PREFIX } from "./queue-names.js";

/** Tuning of the BullMQ transport. Every value has a production default. */
export interface BullmqTransportOptions {
  /** Redis URL, e.g. redis://:password@host:6379/0. */
  redisUrl: string;
  /** The password Redis requires, when the URL has none (REDIS_PASSWORD). */
  redisPassword?: string;
  /**
   * Key prefix of every queue in Redis; tests use their own. Default "assay". On a Redis
   * Cluster it becomes each queue's hash tag unless it holds one (see `keyLayout`).
   */
  prefix?: string;
  /** Jobs per `addBulk` call. Default 500. */
  addChunkSize?: number;
  /** Jobs waiting in one queue above which `enqueue` waits for workers. Default 20,000. */
  highWaterMark?: number;
  /** How often a waiting `enqueue` looks at the queue again, in ms. Default 250. */
  backpressurePollMs?: number;
  /** Tries of a job that fails with a transient error (DB or Redis outage). Default 10. */
  attempts?: number;
  /** First retry delay in ms; doubles on each retry. Default 1000. */
  backoffMs?: number;
  /** How long a worker's claim on a job lasts without renewal, in ms. Default 30,000. */
  lockDurationMs?: number;
  /** How often workers look for jobs whose worker died, in ms. Default 30,000. */
  stalledIntervalMs?: number;
  /**
   * Times a job may be recovered from a dead worker before it fails. Results are
   * idempotent, so a re-run is harmless; the cap only stops a job that kills every
   * worker it lands on. Default 5.
   */
  maxStalledCount?: number;
  /** Finished jobs kept in Redis for inspection; older ones are deleted. Default 1000. */
  keepCompleted?: number;
  /** Failed jobs kept in Redis, so `assay status` can show them. Default 10,000. */
  keepFailed?: number;
  /**
   * Aborting it ends an `enqueue` that waits for room in a full queue (backpressure) with
   * an `EnqueueAbortedError`: a producer told to stop must not wait for workers first.
   */
  signal?: AbortSignal;
  /** Called with worker and connection errors (they are retried, not fatal). */
  onError?: (error: Error) => void;
  /**
   * Commands fail when the connection is lost and does not come back at once, instead of
   * waiting for Redis as long as it takes. For a producer, which then stops with an
   * error that says so; workers wait. Default false.
   */
  failOnOutage?: boolean;
}

export type ResolvedOptions = Required<
  Omit<BullmqTransportOptions, "onError" | "redisUrl" | "redisPassword" | "failOnOutage" | "signal">
> &
  Pick<BullmqTransportOptions, "onError" | "signal">;

export function resolveOptions(options: BullmqTransportOptions): ResolvedOptions {
  const {
    redisUrl: _url,
    redisPassword: _password,
    failOnOutage: _failOnOutage,
    ...rest
  } = options;
  return {
    prefix: DEFAULT_PREFIX,
    addChunkSize: 500,
    highWaterMark: 20_000,
    backpressurePollMs: 250,
    attempts: 10,
    backoffMs: 1000,
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
    maxStalledCount: 5,
    keepCompleted: 1000,
    keepFailed: 10_000,
    ...withoutUndefined(rest),
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
