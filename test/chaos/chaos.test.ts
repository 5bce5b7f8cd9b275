/**
 * The distributed mode's promise, tested the hard way: 20,000 samples through two CPU
 * worker processes while one worker is SIGKILLed twice (and restarted) and Redis itself is
 * kill -9ed once (and restarted on its AOF). Each fault must hit work in progress: a worker
 * is killed only while it holds jobs, Redis only while it holds queued jobs and the workers
 * hold jobs in flight. Every planned result must still be stored exactly once, and the
 * killed workers' jobs must have run again. Prints what each fault hit, the jobs that ran
 * more than once, and the time against a clean run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, produce } from "@assay/pipeline";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import { DATABASE_URL, dropSchema, freshSchema, waitFor } from "@assay/test-support/services";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpuQueueCounts, setCpuQueuePaused, unfinished } from "../distributed/support/cpu-queue.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import {
  inFlight,
  scrapeWorker,
  sumOver,
  type WorkerCounts,
} from "../distributed/support/worker-counts.js";
import { startCpuWorker, type WorkerProcess } from "../distributed/support/worker-process.js";

const SAMPLES = 20_000;
// Short locks so a killed worker's jobs come back within seconds, not the default 30 s.
const WORKER_ARGS = [
  "--concurrency",
  "25",
  "--metrics-port",
  "0",
  "--lock-duration-ms",
  "4000",
  "--stalled-interval-ms",
  "2000",
];
// How long Redis stays down: an outage every worker's connection notices.
const REDIS_DOWN_MS = 1000;
// Bound of each wait for a fault's precondition; a loaded 2-core machine meets it in seconds.
const PRECONDITION_MS = 30_000;

/** What a killed worker process held when it died. */
interface WorkerKill {
  index: number;
  /** Jobs it had started and not stored, scraped just before the kill. */
  inFlight: number;
  /** Re-executions counted before the kill; its own must come on top. */
  reexecutedBefore: number;
}

/** What the Redis kill hit, and what its append-only file brought back. */
interface RedisKill {
  queued: number;
  inFlight: number;
  reloaded: number;
}

describe("chaos: killed workers and a killed Redis", () => {
  const schema = freshSchema();
  const prefix = "assay-chaos";
  const dir = mkdtempSync(join(tmpdir(), "assay-chaos-"));
  const dataset = join(dir, "data.jsonl");
  const specFile = join(dir, "spec.yaml");
  let redis: OwnRedis;
  let store: Store;
  const workers: WorkerProcess[] = [];
  /**
   * Counts of the killed worker processes, scraped just before each kill (the few jobs
   * they started between that scrape and the kill are not counted).
   */
  const dead = { redelivered: 0, duplicates: 0 };

  const startWorker = (): Promise<WorkerProcess> =>
    startCpuWorker({
      redisUrl: redis.url,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
      extraArgs: WORKER_ARGS,
    });

  beforeAll(async () => {
    redis = await startRedis([
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--maxmemory-policy",
      "noeviction",
    ]);
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    writeTextDataset(dataset, SAMPLES);
    writeFileSync(specFile, "name: chaos\nrules: []\ndefault:\n  scorers: [{ name: exact }]\n");
    workers.push(await startWorker(), await startWorker());
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL");
    await store?.close();
    await dropSchema(schema);
    await redis?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Enqueues the whole run while the queue is paused, so the workers start on all of it. */
  async function produceRun(runId: string): Promise<number> {
    const registry = defaultRegistry();
    const spec = await loadSpec(specFile, registry);
    await store.startRun({ id: runId, dataset, spec, transport: "bullmq" });
    await setCpuQueuePaused(redis.url, prefix, true);
    const transport = await BullmqTransport.connect({ redisUrl: redis.url, prefix });
    try {
      return (await produce({ store, transport, registry, dataset, spec, runId })).planned;
    } finally {
      await transport.close();
    }
  }

  /** Resumes the queue and returns the milliseconds until `completed` resolves. */
  async function timeToComplete(runId: string, completed: () => Promise<void>): Promise<number> {
    expect(await store.countResults(runId), `${runId}: nothing scored while paused`).toBe(0);
    const start = performance.now();
    await setCpuQueuePaused(redis.url, prefix, false);
    await completed();
    return performance.now() - start;
  }

  const reached = (runId: string, count: number) => async () =>
    (await store.countResults(runId)) >= count;

  /** Jobs started again so far, by the live workers and the killed ones. */
  async function reexecuted(): Promise<number> {
    return dead.redelivered + (await sumOver(workers, "redelivered"));
  }

  /**
   * SIGKILLs worker `index` at a moment it holds jobs (and more wait in the queue, so it
   * is not between its last jobs), then starts a new one in its place.
   */
  async function killWorkerHoldingJobs(index: number): Promise<WorkerKill> {
    const victim = workers[index] as WorkerProcess;
    let atKill: WorkerCounts | undefined;
    let lastQueue: unknown;
    let before = 0;
    await waitFor(
      async () => {
        const [counts, queue, all] = await Promise.all([
          scrapeWorker(victim),
          cpuQueueCounts(redis.url, prefix),
          reexecuted(),
        ]);
        [atKill, lastQueue, before] = [counts, queue, all];
        return inFlight(counts) > 0 && queue.waiting > 0;
      },
      PRECONDITION_MS,
      `worker ${index} to hold jobs in flight while more wait in the queue`,
    ).catch((error: unknown) => {
      // What the worker and the queue last showed tells a stuck worker from a drained queue.
      throw new Error(
        `${String(error)}; last seen: worker ${index} ${JSON.stringify(atKill)}, queue ${JSON.stringify(lastQueue)}`,
      );
    });
    victim.child.kill("SIGKILL");
    expect(await victim.exited).toBe("SIGKILL");
    const held = atKill as WorkerCounts;
    dead.redelivered += held.redelivered;
    dead.duplicates += held.duplicates;
    workers[index] = await startWorker();
    return { index, inFlight: inFlight(held), reexecutedBefore: before };
  }

  /** The jobs a killed worker held come back once their locks expire, and run again. */
  async function waitForReexecution(kill: WorkerKill): Promise<void> {
    await waitFor(
      async () => (await reexecuted()) > kill.reexecutedBefore,
      60_000,
      `the ${kill.inFlight} jobs worker ${kill.index} held when it was killed to run again`,
    );
  }

  /**
   * kill -9s Redis while it holds queued jobs and the workers hold jobs in flight, then
   * restarts it on its append-only file and checks that the queue came back with it.
   */
  async function killRedisHoldingJobs(): Promise<RedisKill> {
    let queued = 0;
    let held = 0;
    await waitFor(
      async () => {
        const [queue, counts] = await Promise.all([
          cpuQueueCounts(redis.url, prefix),
          Promise.all(workers.map(scrapeWorker)),
        ]);
        queued = queue.waiting;
        held = counts.reduce((sum, c) => sum + inFlight(c), 0);
        return queued > 0 && held > 0;
      },
      PRECONDITION_MS,
      "Redis to hold queued jobs while the workers hold jobs in flight",
    );
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, REDIS_DOWN_MS));
    await redis.restart();
    const reloaded = unfinished(await cpuQueueCounts(redis.url, prefix));
    // Nothing back would be Redis starting empty: say what it loaded and logged.
    const found = reloaded > 0 ? "" : `\n${await redis.describe()}`;
    expect(
      reloaded,
      `jobs reloaded from the AOF (${queued} queued before the kill)${found}`,
    ).toBeGreaterThan(0);
    return { queued, inFlight: held, reloaded };
  }

  /** Re-executed jobs may still be running when the last row lands; count after they end. */
  async function waitUntilIdle(): Promise<void> {
    await waitFor(
      async () => {
        const [queue, counts] = await Promise.all([
          cpuQueueCounts(redis.url, prefix),
          Promise.all(workers.map(scrapeWorker)),
        ]);
        return unfinished(queue) === 0 && counts.every((c) => inFlight(c) === 0);
      },
      PRECONDITION_MS,
      "the queue to empty and every worker to finish its jobs",
    );
  }

  it("stores every planned result exactly once", async () => {
    expect(await produceRun("clean")).toBe(SAMPLES);
    const cleanMs = await timeToComplete("clean", () =>
      waitFor(reached("clean", SAMPLES), 90_000, "the clean run"),
    );

    const planned = await produceRun("chaos");
    // Every job enqueued must be in the AOF before Redis is killed.
    await waitFor(() => redis.aofWritten(), 10_000, "Redis to write the enqueued jobs to its AOF");
    const kills: WorkerKill[] = [];
    let redisKill: RedisKill | undefined;
    const chaosMs = await timeToComplete("chaos", async () => {
      // Each fault lands while work remains: a wait for a killed worker's locks to expire
      // between faults could let the queue drain first on a fast or a loaded machine. Each
      // kill's re-executions are checked once the run is complete.
      // Redis goes first, while most of the run still waits in it: after a worker kill the
      // survivor can drain the queue while the replacement starts on a loaded machine.
      await waitFor(reached("chaos", SAMPLES * 0.1), 60_000, "10%");
      redisKill = await killRedisHoldingJobs();
      await waitFor(reached("chaos", SAMPLES * 0.25), 60_000, "25%");
      kills.push(await killWorkerHoldingJobs(0));
      await waitFor(reached("chaos", SAMPLES * 0.5), 60_000, "50%");
      kills.push(await killWorkerHoldingJobs(1));
      await waitFor(reached("chaos", planned), 120_000, "the chaos run to complete");
    });

    const rows = await resultCounts("chaos");
    expect(planned).toBe(SAMPLES);
    expect(rows).toEqual({ rows: SAMPLES, distinctKeys: SAMPLES, expectedSamples: SAMPLES });

    for (const kill of kills) await waitForReexecution(kill);
    await waitUntilIdle();
    expect((await cpuQueueCounts(redis.url, prefix)).failed).toBe(0);
    const redelivered = await reexecuted();
    const duplicates = dead.duplicates + (await sumOver(workers, "duplicates"));
    process.stdout.write(
      `chaos: ${SAMPLES} results, 0 lost, 0 duplicated; ` +
        `worker 0 killed holding ${kills[0]?.inFlight} jobs, worker 1 killed holding ${kills[1]?.inFlight}, both restarted; ` +
        `Redis killed with ${redisKill?.queued} jobs queued and ${redisKill?.inFlight} in flight, ` +
        `${redisKill?.reloaded} back from its AOF; ` +
        `${redelivered} jobs re-executed (${duplicates} of them after their row was stored, absorbed by the idempotent writer); ` +
        `clean run ${(cleanMs / 1000).toFixed(1)} s, chaos run ${(chaosMs / 1000).toFixed(1)} s ` +
        `(${(chaosMs / cleanMs).toFixed(2)}×)\n`,
    );
    expect(await store.countResults("chaos")).toBe(SAMPLES);

    for (const worker of workers) worker.child.kill("SIGTERM");
    for (const worker of workers.splice(0)) expect(await worker.exited).toBe(0);
  });

  async function resultCounts(runId: string) {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS rows,
                count(DISTINCT (sample_id, scorer, criterion, repetition))::int AS "distinctKeys",
                count(*) FILTER (WHERE sample_id ~ '^s[0-9]+$' AND substr(sample_id, 2)::int < $2)::int AS "expectedSamples"
           FROM "${schema}".scores WHERE run_id = $1`,
        [runId, SAMPLES],
      );
      return rows[0];
    } finally {
      await client.end();
    }
  }
});
