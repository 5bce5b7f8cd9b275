import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@assay/store";
import { freePort, startRedis } from "@assay/test-support/redis-server";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { measureProcess } from "../bench-util.js";
import { cleanupOnInterrupt } from "../interrupt-cleanup.js";
import {
  cpuMs,
  PostgresCpuSampler,
  RedisMemorySampler,
  redisFigures,
  rssMb,
} from "./proc-stats.js";
import {
  metricSum,
  startAssayWorker,
  startRawWorker,
  stopWorker,
  type WorkerProcess,
} from "./worker-processes.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PREFIX = "night";

export type Side = "assay" | "raw";

export interface PhaseOptions {
  side: Side;
  samples: number;
  workers: number;
  concurrency: number;
  dataset: string;
  spec: string;
  /** The transport's high-water mark, which the baseline producer honours too. */
  highWaterMark: number;
  runId: string;
  /** Node flags for the Assay workers (`--worker-node-flags`). */
  workerNodeFlags: string[];
}

export interface PhaseResult {
  side: Side;
  samples: number;
  planned: number;
  rowsStored: number;
  /** Producer start to the last result stored (the queue empty after the last enqueue). */
  endToEndMs: number;
  redisPeakBytes: number;
  /** Redis used_memory before the producer started (the empty server). */
  redisStartBytes: number;
  /** Most jobs seen in the queue at once (waiting, retrying or running), polled. */
  peakJobsInQueue: number;
  /** Redis server CPU (user + sys) from the producer's start to the last result. */
  redisCpuMs: number;
  producerPeakRssMb: number;
  /** CPU of the whole producer process, start-up and (Assay) `--wait` included. */
  producerCpuMs: number;
  workerPeakRssMb: number;
  /** CPU the workers used from the producer's start to the last result, all together. */
  workerCpuMs: number;
  /** CPU of the Postgres backends serving the workers over the same span. */
  postgresCpuMs: number;
  /** Assay only: rows stored per second spent in the writers' flushes, all workers. */
  rowsPerFlushSecond?: number;
  /** Assay only: last result to `produce --wait` done (run completed, summary printed). */
  completeMs?: number;
  /** Assay only: `assay report` of the run, start to finish. */
  reportMs?: number;
}

/**
 * One side of the benchmark on a Redis of its own (so its CPU and memory are this side's
 * alone) and a fresh Postgres schema, both removed at the end: workers started and ready,
 * then the producer, until every planned row is stored.
 */
export async function runPhase(options: PhaseOptions): Promise<PhaseResult> {
  const redisServer = await startRedis(["--maxmemory-policy", "noeviction"]);
  const schema = freshSchema();
  const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  const queue = new Queue("cpu", { connection: redis, prefix: PREFIX });
  const workers: WorkerProcess[] = [];
  const clients: pg.Client[] = [];
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  const dir = mkdtempSync(join(tmpdir(), "assay-bench-night-"));
  const cleanup = cleanupOnInterrupt(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL");
    for (const client of clients) await client.end().catch(() => {});
    await queue.close().catch(() => {});
    redis.disconnect();
    await store.close();
    await dropSchema(schema);
    await redisServer.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    if (options.side === "raw") {
      await store.startRun({ id: options.runId, spec: {}, transport: "bullmq" });
    }
    // Named, so the Postgres backends serving the workers can be told from any others.
    const applicationName = `assay-bench-night-${process.pid}`;
    const workerUrl = new URL(DATABASE_URL);
    workerUrl.searchParams.set("application_name", applicationName);
    const services = {
      redisUrl: redisServer.url,
      prefix: PREFIX,
      databaseUrl: workerUrl.toString(),
      schema,
      concurrency: options.concurrency,
      nodeFlags: options.workerNodeFlags,
    };
    for (let i = 0; i < options.workers; i += 1) {
      workers.push(
        options.side === "assay"
          ? await startAssayWorker(services, await freePort())
          : await startRawWorker(services),
      );
    }
    const workerCpuBefore = sum(workers.map((w) => cpuMs(w.pid)));
    const redisBefore = await redisFigures(redis);
    const sampler = new RedisMemorySampler(redis);
    const postgres = new pg.Client({ connectionString: DATABASE_URL });
    await postgres.connect();
    clients.push(postgres);
    const postgresCpu = new PostgresCpuSampler(postgres, applicationName);
    await postgresCpu.start();
    const start = performance.now();
    let planned = options.side === "raw" ? options.samples : Number.NaN;
    let enqueuedAll = false;
    let producerFailed: Error | undefined;
    const producer = startProducer(options, services, (stderr) => {
      const line = /Enqueued \d+ jobs for \d+ samples \((\d+) results planned/.exec(stderr);
      if (line !== null) {
        planned = Number(line[1]);
        enqueuedAll = true;
      }
    }).then(
      (run) => {
        if (run.exitCode !== 0)
          producerFailed = new Error(`producer exited ${run.exitCode}:\n${run.stderr}`);
        if (options.side === "raw") enqueuedAll = true;
        return run;
      },
      (error: Error) => {
        producerFailed = error;
        throw error;
      },
    );
    // Jobs are acknowledged only once their rows are stored: after the last enqueue, an
    // empty queue (nothing waiting, running or retrying) means every row is stored.
    let peakJobsInQueue = 0;
    for (;;) {
      if (producerFailed !== undefined) throw producerFailed;
      const jobs = await unfinished(queue);
      peakJobsInQueue = Math.max(peakJobsInQueue, jobs);
      if (enqueuedAll && jobs === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lastResult = performance.now();
    const workerCpuMs = sum(workers.map((w) => cpuMs(w.pid))) - workerCpuBefore;
    const redisAfter = await redisFigures(redis);
    sampler.stop();
    await postgresCpu.sample();
    postgresCpu.stop();
    const producerRun = await producer;
    let completeMs: number | undefined;
    let reportMs: number | undefined;
    if (options.side === "assay") {
      completeMs = performance.now() - lastResult;
      const report = await measureProcess(process.execPath, [
        join(ROOT, "apps/cli/dist/main.js"),
        ...["report", options.runId, "--db", DATABASE_URL, "--db-schema", schema],
        ...["--out", join(dir, "report.txt")],
      ]);
      if (report.exitCode !== 0)
        throw new Error(`assay report exited ${report.exitCode}:\n${report.stderr}`);
      reportMs = report.wallMs;
    }
    const workerPeakRssMb = Math.max(...workers.map((w) => rssMb(w.pid).peak));
    const rowsPerFlushSecond = await writerRate(workers);
    await Promise.all(workers.map(stopWorker));
    return {
      side: options.side,
      samples: options.samples,
      planned,
      rowsStored: await store.countResults(options.runId),
      endToEndMs: lastResult - start,
      redisPeakBytes: Math.max(sampler.peakBytes, redisAfter.peakMemoryBytes),
      redisStartBytes: redisBefore.usedMemoryBytes,
      peakJobsInQueue,
      redisCpuMs: redisAfter.cpuMs - redisBefore.cpuMs,
      producerPeakRssMb: producerRun.peakRssMb,
      producerCpuMs: producerRun.cpuMs,
      workerPeakRssMb,
      workerCpuMs,
      postgresCpuMs: postgresCpu.totalMs(),
      ...(rowsPerFlushSecond !== undefined && { rowsPerFlushSecond }),
      ...(completeMs !== undefined && { completeMs }),
      ...(reportMs !== undefined && { reportMs }),
    };
  } finally {
    await cleanup();
  }
}

function startProducer(
  options: PhaseOptions,
  services: { redisUrl: string; prefix: string; schema: string },
  onStderr: (text: string) => void,
) {
  if (options.side === "raw") {
    return measureProcess(
      process.execPath,
      [
        ...["--conditions=@assay/source", "--import", "tsx"],
        fileURLToPath(new URL("./raw-producer.ts", import.meta.url)),
        ...[services.redisUrl, services.prefix, options.runId, options.dataset],
        ...[String(options.samples), String(options.highWaterMark)],
      ],
      onStderr,
    );
  }
  return measureProcess(
    process.execPath,
    [
      join(ROOT, "apps/producer/dist/main.js"),
      options.dataset,
      ...["--spec", options.spec, "--run-id", options.runId, "--wait"],
      ...["--db", DATABASE_URL, "--db-schema", services.schema],
      ...["--redis", services.redisUrl, "--queue-prefix", services.prefix],
    ],
    onStderr,
  );
}

async function unfinished(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts(
    "wait",
    "prioritized",
    "active",
    "delayed",
    "waiting-children",
  );
  return sum(Object.values(counts));
}

/** Rows stored per second of flushing, over the Assay workers' writer metrics. */
async function writerRate(workers: WorkerProcess[]): Promise<number | undefined> {
  let rows = 0;
  let seconds = 0;
  for (const worker of workers) {
    if (worker.metricsUrl === undefined) return undefined;
    const page = await (await fetch(worker.metricsUrl)).text();
    rows += metricSum(page, "assay_writer_rows_total");
    seconds += metricSum(page, "assay_writer_flush_seconds_sum");
  }
  return seconds > 0 ? rows / seconds : undefined;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
