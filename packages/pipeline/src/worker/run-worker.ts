import { once } from "node:events";
import { type Pool, scorerKey, UnrecoverableJobError } from "@assay/core";
import {
  type BullmqTransport,
  type JobHandler,
  type PausableConsumer,
  queueNameFor,
} from "@assay/queue";
import type { ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import type { Logger } from "../logger.js";
import { completeRun } from "../run/complete-run.js";
import { createScoreHandler } from "../run/score-handler.js";
import { DatabaseOutage } from "./database-outage.js";
import { meteredResultWriter } from "./metered-writer.js";
import { startMetricsServer } from "./metrics-server.js";
import type { RedisOutage } from "./redis-outage.js";
import { RunCompletionWatch } from "./run-completion-watch.js";
import { type ConsumerState, workerHealth } from "./worker-health.js";
import { type VerifierTotals, WorkerMetrics } from "./worker-metrics.js";

export interface RunWorkerOptions {
  pool: Pool;
  /** GPU pool: the model whose queue this process serves. */
  model?: string;
  concurrency: number;
  /** Time limit of a job whose spec set none, in ms (see `ScoreHandlerOptions`). */
  jobTimeoutMs?: number;
  store: Store;
  transport: BullmqTransport;
  registry: ScorerRegistry;
  log: Logger;
  /** GPU pool: the loaded verifier's token totals, served as `assay_verifier_*` metrics. */
  verifierTotals?: () => VerifierTotals;
  /** Serve Prometheus metrics on this port; 0 picks a free one. */
  metricsPort?: number;
  /** Aborted on SIGTERM/SIGINT: stop taking jobs, finish in-flight ones, flush, return. */
  signal: AbortSignal;
  /** The store's database as log lines name it; default "Postgres". */
  database?: string;
  /**
   * Follows the transport's Redis (its errors reach it through the transport's `onError`
   * too): its outages are logged, served as metrics and make `/readyz` fail.
   */
  redisOutage?: RedisOutage;
}

/**
 * One worker process: takes jobs of one pool (one model for GPU), scores them with the same
 * handler as `assay run`, and stores rows through a batched writer. A job is acknowledged
 * only after its row is stored, so a killed worker loses nothing: its unacknowledged jobs
 * go back to the queue (stalled-job recovery) and the idempotent writer absorbs repeats.
 * When the database goes away the worker stops taking jobs until it answers again
 * (`DatabaseOutage`); the jobs that failed on it are retried from the queue. Either
 * server's outage is a warning when it starts (again every 30 s while it lasts) and a
 * line when it ends (`ServiceOutage`), `assay_service_*` metrics and a failing `/readyz`. The worker
 * that stores a run's last result completes the run (`RunCompletionWatch`).
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const { pool, store, transport, log, redisOutage } = options;
  redisOutage?.watch(transport.redis);
  // The consumer starts after the outage watch that pauses it; it reads it through this.
  const consumerRef: { current?: PausableConsumer } = {};
  const outage = new DatabaseOutage({
    ping: () => store.ping(),
    pause: async () => consumerRef.current?.pause(),
    resume: () => consumerRef.current?.resume(),
    log,
    database: options.database ?? "Postgres",
    signal: options.signal,
  });
  const services = () => [
    outage.service.state(),
    ...(redisOutage === undefined ? [] : [redisOutage.service.state()]),
  ];
  const consumerState = (): ConsumerState =>
    options.signal.aborted ? "stopping" : outage.down ? "paused: Postgres is gone" : "taking jobs";
  const metrics = new WorkerMetrics(
    () => transport.queueCounts(),
    options.verifierTotals,
    services,
  );
  // Every scorer this pool runs has its series from the first scrape; a scorer `key` a
  // spec gives gets them when its first job starts.
  const { registry } = options;
  for (const scorer of registry.names().filter((name) => registry.get(name)?.pool === pool)) {
    metrics.seeScorer(pool, scorer);
  }
  const server =
    options.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics.registry, options.metricsPort, () =>
          workerHealth(consumerState(), services()),
        );
  if (server !== undefined) log.info({ port: server.port }, "metrics on /metrics");

  // A batch larger than the jobs in flight could never fill; it would always wait the deadline.
  const writer = meteredResultWriter(store, metrics, {
    maxBatch: Math.min(1000, options.concurrency),
    maxDelayMs: 20,
  });
  const completion = new RunCompletionWatch({
    complete: (runId) => completeRun(store, runId),
    onCompleted: (runId) => log.info({ run: runId }, "run completed"),
    onError: (runId, error) => {
      if (!outage.noticed(error)) log.warn({ err: error, run: runId }, "could not complete run");
    },
  });
  const handler = countedHandler(
    // The store records a result it refuses as an input error on the sample's line.
    createScoreHandler({
      registry: options.registry,
      writer,
      store,
      ...(options.jobTimeoutMs !== undefined && { jobTimeoutMs: options.jobTimeoutMs }),
    }),
    { pool, metrics, log, outage, completion },
  );
  const consumer = transport.consume(pool, handler, {
    concurrency: options.concurrency,
    ...(options.model !== undefined && { model: options.model }),
    onRedelivered: (job) => metrics.redelivered.inc({ pool, scorer: scorerKey(job.scorer) }),
  });
  consumerRef.current = consumer;
  // The queue as `assay status` and the KEDA triggers name it (prefix:name in Redis).
  const queue = queueNameFor(pool, options.model);
  log.info(
    {
      pool,
      model: options.model,
      queue,
      prefix: transport.prefix,
      concurrency: options.concurrency,
    },
    "worker started",
  );

  if (!options.signal.aborted) await once(options.signal, "abort");
  log.info("stopping: finishing in-flight jobs");
  await outage.settled();
  await consumer.stop();
  await writer.close();
  await completion.stop();
  await server?.close();
  log.info({ stored: writer.stats.rows }, "worker stopped");
}

interface HandlerContext {
  pool: Pool;
  metrics: WorkerMetrics;
  log: Logger;
  outage: DatabaseOutage;
  completion: RunCompletionWatch;
}

function countedHandler(handler: JobHandler, context: HandlerContext): JobHandler {
  const { pool, metrics, log, outage, completion } = context;
  return async (job, signal) => {
    const scorer = scorerKey(job.scorer);
    metrics.seeScorer(pool, scorer);
    metrics.started.inc({ pool, scorer });
    completion.jobStarted();
    let stored = false;
    try {
      await handler(job, signal);
      stored = true;
      metrics.processed.inc({ pool, scorer });
    } catch (error) {
      const kind = error instanceof UnrecoverableJobError ? "unrecoverable" : "transient";
      metrics.failed.inc({ pool, scorer, kind });
      // A database outage is one log line (the outage's), not one per job it failed.
      if (!outage.noticed(error)) {
        log.warn({ err: error, scorer, sample: job.sample.id, kind }, "job failed");
      }
      throw error;
    } finally {
      completion.jobEnded(stored ? job.runId : undefined);
    }
  };
}
