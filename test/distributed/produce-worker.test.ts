import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { DEFAULT_SPEC, produce } from "@assay/pipeline";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpuQueueCounts } from "./support/cpu-queue.js";
import { writeTextDataset } from "./support/dataset.js";
import { inFlight, scrapeWorker, type WorkerCounts } from "./support/worker-counts.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

const DRAIN_SAMPLES = 2500;

describe("assay produce + assay worker", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-e2e-"));
  const dataset = join(dir, "data.jsonl");
  // Enough jobs that the worker is still busy when the drain test signals it.
  const drainDataset = join(dir, "drain.jsonl");
  const common = [
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--redis",
    REDIS_URL,
    "--queue-prefix",
    prefix,
  ];
  let store: Store;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    writeTextDataset(dataset, 500);
    writeTextDataset(drainDataset, DRAIN_SAMPLES);
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await store.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores every planned result, serves metrics, and finishes the run once", async () => {
    worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
      extraArgs: ["--concurrency", "50", "--metrics-port", "0"],
    });
    const produced = await assayInProcess([
      "produce",
      dataset,
      ...common,
      "--run-id",
      "e2e",
      "--wait",
      "--quiet",
    ]);
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    expect(await store.countResults("e2e")).toBe(1000);
    const run = await store.getRun("e2e");
    expect(run?.plannedResults).toBe(1000);
    expect(run?.finishedAt).not.toBeNull();

    const port = /"port":(\d+)/.exec(worker.logs())?.[1];
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/assay_jobs_processed_total\{pool="cpu",scorer="exact"\} 500/);
    expect(metrics).toMatch(/assay_writer_batch_size_count \d+/);
    // Every write is timed and counted once, and what it inserted is recorded.
    const total = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(metrics)?.[1]);
    expect(total("assay_writer_flush_seconds_count")).toBe(total("assay_writer_batch_size_count"));
    expect(total("assay_writer_batch_size_count")).toBeGreaterThan(0);
    expect(metrics).toMatch(/assay_writer_rows_total\{outcome="inserted"\} [1-9]\d*/);
    expect(metrics).toContain('assay_queue_depth{queue="cpu",state="waiting"} 0');
  });

  it("enqueues nothing when the same run is produced again", async () => {
    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    try {
      const again = await produce({
        store,
        transport,
        registry: defaultRegistry(),
        dataset,
        spec: DEFAULT_SPEC,
        runId: "e2e",
      });
      expect(again).toMatchObject({ planned: 1000, enqueued: 0, skipped: 1000 });
    } finally {
      await transport.close();
    }
  });

  it("drains on SIGTERM: in-flight jobs finish, nothing is left active, exit code 0", async () => {
    const running = worker as WorkerProcess;
    // Not awaited: the worker is signalled while this produce still enqueues or just has.
    const produced = assayInProcess([
      "produce",
      drainDataset,
      ...common,
      "--run-id",
      "drain",
      "--quiet",
    ]);
    // Signal only while the worker holds jobs and more wait, so the drain has jobs to
    // finish and jobs to leave behind.
    let atSignal: WorkerCounts | undefined;
    await waitFor(
      async () => {
        const [counts, queue] = await Promise.all([
          scrapeWorker(running),
          cpuQueueCounts(REDIS_URL, prefix),
        ]);
        atSignal = counts;
        return inFlight(counts) > 0 && queue.waiting > 0;
      },
      30_000,
      "the worker to hold jobs in flight while more wait in the queue",
    );
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    const stopped = /"stored":(\d+)[^\n]*"msg":"worker stopped"/.exec(running.logs());
    expect(stopped, running.logs()).not.toBeNull();
    worker = undefined;

    // Every job it had taken before the signal was stored (one row each), none abandoned.
    const started = (atSignal as WorkerCounts).started;
    expect(Number(stopped?.[1])).toBeGreaterThanOrEqual(started);
    expect((await produced).code).toBe(ExitCode.ok);
    const cpu = await cpuQueueCounts(REDIS_URL, prefix);
    expect(cpu.active).toBe(0);
    expect(cpu.failed).toBe(0);
    // It stopped taking jobs: the rest wait in the queue for another worker.
    expect(cpu.waiting).toBeGreaterThan(0);
    expect((await store.countResults("drain")) + cpu.waiting).toBe(2 * DRAIN_SAMPLES);
  });

  it("status reports planned, done and the queues", async () => {
    const shown = await assayInProcess(["status", "e2e", ...common, "--json"]);
    expect(shown.code, shown.stderr).toBe(ExitCode.ok);
    const status = JSON.parse(shown.stdout);
    expect(status).toMatchObject({
      runId: "e2e",
      planned: 1000,
      done: 1000,
      finished: true,
      etaSeconds: 0,
    });
    expect(status.queues[0]).toMatchObject({ queue: "cpu", active: 0 });
  });

  it("refuses the embedded store: every process must share one Postgres", async () => {
    const refused = await assayInProcess([
      "produce",
      dataset,
      "--db",
      dir,
      "--redis",
      REDIS_URL,
      "--queue-prefix",
      prefix,
    ]);
    expect(refused.code).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain("needs a Postgres server shared by");
  });
});
