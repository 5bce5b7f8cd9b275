/**
 * The worker's database dies under it: Postgres is kill -9ed while a CPU worker holds jobs.
 * The worker must keep running (no crash on the dropped connections), stop taking jobs,
 * say so once, and resume by itself when the server is back; every planned result ends up
 * stored exactly once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, produce } from "@assay/pipeline";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore } from "@assay/store";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setCpuQueuePaused } from "../distributed/support/cpu-queue.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";
import { storedKeys } from "../distributed/support/stored-keys.js";
import { inFlight, scrapeSeries, scrapeWorker } from "../distributed/support/worker-counts.js";
import { startCpuWorker, type WorkerProcess } from "../distributed/support/worker-process.js";

const SAMPLES = 4000;
const SCHEMA = "assay";
// How long the database stays down: several of the worker's reconnection attempts.
const DOWN_MS = 4000;

describe("chaos: Postgres killed under a worker", () => {
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-kill-"));
  const dataset = join(dir, "data.jsonl");
  const specFile = join(dir, "spec.yaml");
  let postgres: OwnPostgres;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    postgres = await startPostgres();
    writeTextDataset(dataset, SAMPLES);
    writeFileSync(specFile, "name: pg-kill\nrules: []\ndefault:\n  scorers: [{ name: exact }]\n");
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await postgres?.remove();
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Enqueues the run into a paused queue, so the worker starts on all of it at once. */
  async function produceRun(runId: string): Promise<number> {
    const store = await openStore({ databaseUrl: postgres.url, schema: SCHEMA, migrate: true });
    try {
      const registry = defaultRegistry();
      const spec = await loadSpec(specFile, registry);
      await store.startRun({ id: runId, dataset, spec, transport: "bullmq" });
      await setCpuQueuePaused(REDIS_URL, prefix, true);
      const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
      try {
        return (await produce({ store, transport, registry, dataset, spec, runId })).planned;
      } finally {
        await transport.close();
      }
    } finally {
      await store.close();
    }
  }

  it("keeps running while the database is gone, then stores every result once", async () => {
    const planned = await produceRun("pg-kill");
    expect(planned).toBe(SAMPLES);
    worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: postgres.url,
      schema: SCHEMA,
      prefix,
      extraArgs: ["--concurrency", "25", "--metrics-port", "0"],
    });
    const running = worker;
    await setCpuQueuePaused(REDIS_URL, prefix, false);

    // The fault must hit work in progress: some rows stored, jobs held by the worker.
    await waitFor(
      async () =>
        (await storedKeys({ url: postgres.url, runId: "pg-kill", schema: SCHEMA })).rows >=
          SAMPLES * 0.1 && inFlight(await scrapeWorker(running)) > 0,
      60_000,
      "10% stored while the worker holds jobs",
    );
    await postgres.kill();
    await expect(
      storedKeys({ url: postgres.url, runId: "pg-kill", schema: SCHEMA }),
      "the server is gone",
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    expect(
      running.child.exitCode,
      `worker still running:\n${running.logs().slice(-3000)}`,
    ).toBeNull();
    expect(running.logs()).toMatch(/lost the connection to Postgres/);
    expect(await scrapeSeries(running, "assay_service_up", 'service="postgres"')).toBe(0);

    await postgres.restart();
    await waitFor(
      async () =>
        (await storedKeys({ url: postgres.url, runId: "pg-kill", schema: SCHEMA })).rows >= planned,
      90_000,
      "every planned result to be stored after the restart",
    );
    expect(await storedKeys({ url: postgres.url, runId: "pg-kill", schema: SCHEMA })).toEqual({
      rows: planned,
      distinctKeys: planned,
    });
    expect(running.child.exitCode, "worker still running").toBeNull();
    // The jobs that failed on the outage ran again from the queue.
    expect((await scrapeWorker(running)).redelivered).toBeGreaterThan(0);
    // One line when the database went away and one when it came back, not one per job.
    expect(countMatches(running.logs(), /lost the connection to Postgres/g)).toBe(1);
    expect(countMatches(running.logs(), /is back after/g)).toBe(1);
    expect(await scrapeSeries(running, "assay_service_up", 'service="postgres"')).toBe(1);
    expect(await scrapeSeries(running, "assay_service_outages_total", 'service="postgres"')).toBe(
      1,
    );

    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });
});

function countMatches(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
