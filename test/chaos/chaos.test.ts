/**
 * The distributed mode's promise, tested the hard way: 20,000 samples through two CPU
 * worker processes while one worker is SIGKILLed twice (and restarted) and Redis itself is
 * kill -9ed once (and restarted on its AOF). Every planned result must be stored exactly
 * once. Prints the jobs that ran more than once and the time against a clean run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, produce } from "@assay/pipeline";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { type OwnRedis, startRedis } from "../distributed/support/redis-server.js";
import { DATABASE_URL, dropSchema, freshSchema, waitFor } from "../distributed/support/services.js";
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

describe("chaos: killed workers and a killed Redis", () => {
  const schema = freshSchema();
  const prefix = "assay-chaos";
  const dir = mkdtempSync(join(tmpdir(), "assay-chaos-"));
  const dataset = join(dir, "data.jsonl");
  const specFile = join(dir, "spec.yaml");
  let redis: OwnRedis;
  let store: Store;
  const workers: WorkerProcess[] = [];
  /** Re-executions each killed worker process had seen (redeliveries, duplicate rows). */
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

  async function produceRun(runId: string): Promise<number> {
    const registry = defaultRegistry();
    const spec = await loadSpec(specFile, registry);
    await store.startRun({ id: runId, dataset, spec, transport: "bullmq" });
    const transport = await BullmqTransport.connect({ redisUrl: redis.url, prefix });
    try {
      return (await produce({ store, transport, registry, dataset, spec, runId })).planned;
    } finally {
      await transport.close();
    }
  }

  const reached = (runId: string, count: number) => async () =>
    (await store.countResults(runId)) >= count;

  async function killWorker(index: number): Promise<void> {
    const victim = workers[index] as WorkerProcess;
    dead.redelivered += await redeliveredBy(victim);
    dead.duplicates += await duplicatesBy(victim);
    victim.child.kill("SIGKILL");
    await victim.exited;
    workers[index] = await startWorker();
  }

  it("stores every planned result exactly once", async () => {
    const cleanStart = performance.now();
    expect(await produceRun("clean")).toBe(SAMPLES);
    await waitFor(reached("clean", SAMPLES), 90_000, "the clean run");
    const cleanMs = performance.now() - cleanStart;

    const chaosStart = performance.now();
    const planned = await produceRun("chaos");
    // Everything enqueued is on disk once appendfsync (every second) has run.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await waitFor(reached("chaos", SAMPLES * 0.15), 60_000, "15%");
    await killWorker(0);
    await waitFor(reached("chaos", SAMPLES * 0.35), 60_000, "35%");
    await killWorker(0);
    await waitFor(reached("chaos", SAMPLES * 0.55), 60_000, "55%");
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.restart();
    await waitFor(reached("chaos", planned), 120_000, "the chaos run to complete");
    const chaosMs = performance.now() - chaosStart;

    const rows = await resultCounts("chaos");
    expect(planned).toBe(SAMPLES);
    expect(rows).toEqual({ rows: SAMPLES, distinctKeys: SAMPLES, expectedSamples: SAMPLES });

    // Let stragglers (re-executed jobs still in flight) finish before counting.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const redelivered = dead.redelivered + (await sum(workers.map(redeliveredBy)));
    const duplicates = dead.duplicates + (await sum(workers.map(duplicatesBy)));
    process.stdout.write(
      `chaos: ${SAMPLES} results, 0 lost, 0 duplicated; ${redelivered} jobs re-executed (${duplicates} of them after their row was stored, absorbed by the idempotent writer); ` +
        `clean run ${(cleanMs / 1000).toFixed(1)} s, chaos run ${(chaosMs / 1000).toFixed(1)} s ` +
        `(${(chaosMs / cleanMs).toFixed(2)}×)\n`,
    );
    expect(await store.countResults("chaos")).toBe(SAMPLES);

    for (const worker of workers) worker.child.kill("SIGTERM");
    for (const worker of workers.splice(0)) expect(await worker.exited).toBe(0);
  }, 180_000);

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

async function sum(values: Promise<number>[]): Promise<number> {
  return (await Promise.all(values)).reduce((total, n) => total + n, 0);
}

/** Jobs the worker started that had been started before (recovered from a dead worker). */
function redeliveredBy(worker: WorkerProcess): Promise<number> {
  return scrape(worker, /^assay_jobs_redelivered_total\{[^}]*\} (\d+)/gm);
}

/** Rows the worker's writer found already stored: jobs that ran a second time. */
function duplicatesBy(worker: WorkerProcess): Promise<number> {
  return scrape(worker, /^assay_writer_rows_total\{outcome="duplicate"\} (\d+)/gm);
}

async function scrape(worker: WorkerProcess, metric: RegExp): Promise<number> {
  const port = /"port":(\d+)/.exec(worker.logs())?.[1];
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return [...text.matchAll(metric)].reduce((sum, m) => sum + Number(m[1]), 0);
  } catch {
    return 0;
  }
}
