import type { Pool } from "@assay/core";
import type { QueueCounts } from "@assay/queue";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ServiceState } from "./service-outage.js";

/** Why a job failed: retried (an outage), or failed at once (a job that cannot succeed). */
export const FAILURE_KINDS = ["transient", "unrecoverable"] as const;

/**
 * A GPU worker's verifier since it loaded, read on each scrape. Tokens/s is the rate of
 * `promptTokens`; the share of padding in the forward passes is 1 − computed / padded.
 */
export interface VerifierTotals {
  /** Tokens of the prompts scored. */
  promptTokens: number;
  /** Tokens the forward passes computed for real: a prefix shared by prompts counts once. */
  computedTokens: number;
  /** Positions the forward passes computed, padding included (rows × the longest row). */
  paddedTokens: number;
  /** Forward passes run. */
  passes: number;
}

/** What a worker reports to Prometheus. One registry per worker, not prom-client's global. */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly started = new Counter({
    name: "assay_jobs_started_total",
    help: "Score jobs taken from the queue, by pool and scorer (more than processed: in flight, failed)",
    labelNames: ["pool", "scorer"] as const,
    registers: [this.registry],
  });
  readonly redelivered = new Counter({
    name: "assay_jobs_redelivered_total",
    help: "Jobs started again: retries, and jobs recovered from dead workers (re-executions)",
    labelNames: ["pool", "scorer"] as const,
    registers: [this.registry],
  });
  readonly processed = new Counter({
    name: "assay_jobs_processed_total",
    help: "Score jobs whose result was stored, by pool and scorer",
    labelNames: ["pool", "scorer"] as const,
    registers: [this.registry],
  });
  readonly failed = new Counter({
    name: "assay_jobs_failed_total",
    help: "Score jobs that failed (retried unless unrecoverable), by pool, scorer and kind",
    labelNames: ["pool", "scorer", "kind"] as const,
    registers: [this.registry],
  });
  readonly rowsWritten = new Counter({
    name: "assay_writer_rows_total",
    help: "Score rows flushed: inserted, or duplicate (already stored by an earlier execution of the job)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly batchSize = new Histogram({
    name: "assay_writer_batch_size",
    help: "Score rows per writer flush",
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2000],
    registers: [this.registry],
  });
  readonly flushSeconds = new Histogram({
    name: "assay_writer_flush_seconds",
    help: "Time to store one batch of score rows",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly #seenScorers = new Set<string>();

  /**
   * Gives the job counters of `scorer` a series at 0 (failures of each kind included), once.
   * A counter has no series until its first increment, and a rate or an alert on a series
   * that does not exist sees nothing, not 0: a first failure would go unnoticed.
   */
  seeScorer(pool: Pool, scorer: string): void {
    if (this.#seenScorers.has(scorer)) return;
    this.#seenScorers.add(scorer);
    for (const counter of [this.started, this.redelivered, this.processed]) {
      counter.inc({ pool, scorer }, 0);
    }
    for (const kind of FAILURE_KINDS) this.failed.inc({ pool, scorer, kind }, 0);
  }

  /**
   * `counts` (and `verifier`, on the GPU pool, and `services`) are read on each scrape, so
   * the gauge shows the queue as it is now and the counters their totals since the start.
   */
  constructor(
    counts: () => Promise<QueueCounts[]>,
    verifier?: () => VerifierTotals,
    services: () => ServiceState[] = () => [],
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: "assay_worker_" });
    if (verifier !== undefined) this.#registerVerifier(verifier);
    this.#registerServices(services);
    new Gauge({
      name: "assay_queue_depth",
      help: "Jobs in each queue by state (no series while Redis is out of reach)",
      labelNames: ["queue", "state"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // Commands wait through a Redis outage: a scrape must not, or Prometheus would
        // see no metric at all, assay_service_up included, for as long as it lasts.
        const redisDown = services().some((s) => s.service === "redis" && !s.up);
        const queues = redisDown ? [] : await withinTime(counts(), QUEUE_DEPTH_TIMEOUT_MS);
        for (const queue of queues) {
          for (const state of ["waiting", "active", "delayed", "failed"] as const) {
            this.set({ queue: queue.queue, state }, queue[state]);
          }
        }
      },
    });
  }

  #registerServices(services: () => ServiceState[]): void {
    new Gauge({
      name: "assay_service_up",
      help: "1 while the worker reaches the server (postgres, redis), 0 while it is gone",
      labelNames: ["service"] as const,
      registers: [this.registry],
      collect() {
        for (const s of services()) this.set({ service: s.service }, s.up ? 1 : 0);
      },
    });
    new Counter({
      name: "assay_service_outages_total",
      help: "Times the worker lost the server (postgres, redis) since it started",
      labelNames: ["service"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of services()) this.inc({ service: s.service }, s.outages);
      },
    });
    new Counter({
      name: "assay_service_down_seconds_total",
      help: "Seconds the server (postgres, redis) was gone since the worker started, the current outage included",
      labelNames: ["service"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of services()) this.inc({ service: s.service }, s.downSeconds);
      },
    });
  }

  #registerVerifier(totals: () => VerifierTotals): void {
    new Counter({
      name: "assay_verifier_tokens_total",
      help: "Verifier tokens since load: prompt (scored), computed (real, shared prefixes once), padded (computed with padding)",
      labelNames: ["kind"] as const,
      registers: [this.registry],
      collect() {
        const now = totals();
        this.reset();
        this.inc({ kind: "prompt" }, now.promptTokens);
        this.inc({ kind: "computed" }, now.computedTokens);
        this.inc({ kind: "padded" }, now.paddedTokens);
      },
    });
    new Counter({
      name: "assay_verifier_forward_passes_total",
      help: "Verifier forward passes run since load",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(totals().passes);
      },
    });
  }
}

/** How long a scrape waits for the queue depth before it leaves the gauge out. */
const QUEUE_DEPTH_TIMEOUT_MS = 2000;

/** `promise`'s value, or no queues when it takes longer than `ms` or fails. */
async function withinTime(promise: Promise<QueueCounts[]>, ms: number): Promise<QueueCounts[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<QueueCounts[]>((resolve) => {
    timer = setTimeout(() => resolve([]), ms);
  });
  try {
    return await Promise.race([promise.catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}
