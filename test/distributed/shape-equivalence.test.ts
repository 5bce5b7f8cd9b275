/**
 * One run, two shapes: the same dataset and spec scored by `assay run` (one process, the
 * embedded store) and as a distributed night (a producer killed mid-stream and resumed, CPU
 * and GPU workers, one of them killed while it holds jobs, the run completed by `assay
 * status`) must leave the same rows in every table `assay export` writes and the same
 * report figures, cost included. The night is small (about 560 samples, 1,700 results) but
 * has every kind of work: deterministic scorers, a verifier, a pairwise judge, selection,
 * generator and verifier usage priced by one table, and input errors.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode } from "@assay/cli";
import { makeTinyModel } from "@assay/model-tools";
import { BullmqTransport } from "@assay/queue";
import { openStore, type Store } from "@assay/store";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";
import {
  cli,
  comparable,
  exportEveryTable,
  reportFigures,
  reportJson,
} from "./support/run-exports.js";
import { type ShapesNight, writeShapesNight } from "./support/shapes-night.js";
import { inFlight, scrapeWorker, type WorkerCounts } from "./support/worker-counts.js";
import { startCpuWorker, startGpuWorker, type WorkerProcess } from "./support/worker-process.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUN = "night";
const TASKS = 260;

/**
 * Fields that differ between two runs of the same work by nature, left out of the
 * comparison wherever they appear (a column, or a score's `detail.usage`): `compute_ms` is
 * the wall-clock time a verifier call took, which moves with the machine's load, and
 * `forward_passes` is the call's share of the batched passes it ran in (each pass split
 * evenly over its rows), which follows what happened to be batched together. Nothing else
 * is left out: both runs have the same id, and `assay export` writes no timestamps.
 */
const PER_RUN_FIELDS = ["compute_ms", "computeMs", "forward_passes", "forwardPasses"];

/**
 * Report figures that differ by nature: when the run started and finished, the forward
 * passes (summed from the per-call shares above, and per solved task), and the verifier's
 * compute time in the cost-by-model table (wall-clock, as above; its cost is compared,
 * since the spec prices the verifier by token, not by GPU hour).
 */
const PER_RUN_FIGURES = [
  "startedAt",
  "finishedAt",
  "forwardPasses",
  "forwardPassesPerSolvedTask",
  "computeMs",
];

/** Short locks, so the jobs of a killed worker come back within seconds. */
const WORKER_ARGS = ["--metrics-port", "0", "--lock-duration-ms", "4000"];

describe("one dataset and spec, scored embedded and as a distributed night", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-shapes-"));
  // Inside the repository, so that the spec can name it relative to where every command
  // runs, as an operator writes it.
  const modelName = `.models/shapes-${randomUUID().slice(0, 8)}`;
  const modelDir = join(ROOT, modelName);
  const embedded = ["--db", join(dir, "embedded")];
  const services = ["--db", DATABASE_URL, "--db-schema", schema];
  const distributed = [...services, "--redis", REDIS_URL, "--queue-prefix", prefix];
  const workers: WorkerProcess[] = [];
  let night: ShapesNight;
  let store: Store;
  let admin: pg.Client;

  beforeAll(async () => {
    // Right-padded: a row's score is the same bit for bit in any batch (docs/architecture.md,
    // "Prefix reuse"), so the two shapes' batches cannot make their values differ.
    await makeTinyModel(modelDir, { head: "distribution", paddingSide: "right" });
    night = writeShapesNight(dir, TASKS, modelName);
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL");
    await admin?.end();
    await store?.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
    rmSync(modelDir, { recursive: true, force: true });
  });

  const common = { redisUrl: REDIS_URL, databaseUrl: DATABASE_URL, schema, prefix };
  const started = (worker: WorkerProcess): WorkerProcess => {
    workers.push(worker);
    return worker;
  };
  const stopGracefully = async (stopped: readonly WorkerProcess[]): Promise<void> => {
    for (const worker of stopped) worker.child.kill("SIGTERM");
    for (const worker of stopped) expect(await worker.exited).toBe(0);
  };
  /** A GPU worker of the spec's model, spelled as given: each spelling serves its one queue. */
  const gpuWorker = async (model: string, extraArgs: string[] = []) =>
    started(
      await startGpuWorker({
        ...common,
        model,
        extraArgs: [...WORKER_ARGS, "--concurrency", "8", ...extraArgs],
      }),
    );
  const cpuWorker = async () =>
    started(await startCpuWorker({ ...common, extraArgs: WORKER_ARGS }));

  const produceArgs = (): string[] => [
    "produce",
    night.dataset,
    "--spec",
    night.spec,
    "--run-id",
    RUN,
    ...distributed,
  ];

  const storedSamples = async (): Promise<number> =>
    Number(
      (await admin.query(`SELECT count(*) AS n FROM "${schema}".samples WHERE run_id = $1`, [RUN]))
        .rows[0]?.n,
    );

  const modelQueueCounts = async () => {
    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    try {
      const queues = await transport.queueCounts();
      const sum = (key: "waiting" | "active" | "delayed" | "failed", gpu: boolean) =>
        queues.filter((q) => q.queue.startsWith("gpu-") === gpu).reduce((n, q) => n + q[key], 0);
      return {
        gpuWaiting: sum("waiting", true),
        unfinished: ["waiting", "active", "delayed"].reduce(
          (n, key) => n + sum(key as "waiting", true) + sum(key as "waiting", false),
          0,
        ),
        failed: sum("failed", true) + sum("failed", false),
      };
    } finally {
      await transport.close();
    }
  };

  /**
   * Statement triggers that make each stored chunk of samples take 1.5 s and each batch of
   * results 0.3 s, so the producer can be killed between two chunks and a worker while its
   * jobs wait for their rows. Released by replacing their functions (no lock on the tables
   * the workers write).
   */
  const brakes = {
    async on(): Promise<void> {
      await admin.query(`
        CREATE FUNCTION "${schema}".brake_samples() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(1.5); RETURN NULL; END $$;
        CREATE TRIGGER brake AFTER INSERT ON "${schema}".samples
        FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".brake_samples();
        CREATE FUNCTION "${schema}".brake_scores() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
        CREATE TRIGGER brake AFTER INSERT ON "${schema}".scores
        FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".brake_scores();`);
    },
    async off(): Promise<void> {
      for (const table of ["samples", "scores"]) {
        await admin.query(`
          CREATE OR REPLACE FUNCTION "${schema}".brake_${table}() RETURNS trigger
          LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;`);
      }
    },
  };

  it("stores the same rows in every table and reports the same figures", async () => {
    // Embedded: `assay run`, one process, the embedded store.
    const local = await cli([
      "run",
      night.dataset,
      "--spec",
      night.spec,
      "--run-id",
      RUN,
      "--quiet",
      ...embedded,
    ]);
    expect(local).toBe(4); // the night's input errors

    // Distributed, first wave: a CPU worker and two GPU workers, then the producer, killed
    // once its first chunk's jobs are enqueued (the second chunk takes 1.5 s to store).
    await brakes.on();
    const [firstCpu, victim, survivor] = await Promise.all([
      cpuWorker(),
      gpuWorker(`${modelDir}/`),
      gpuWorker(`./${modelName}`, ["--stalled-interval-ms", "1000"]),
    ]);
    const killedProducer = startAssay(produceArgs());
    await waitFor(
      async () => (await modelQueueCounts()).gpuWaiting > 0,
      60_000,
      "the first chunk's jobs enqueued",
    );
    killedProducer.child.kill("SIGKILL");
    await killedProducer.done;
    expect(killedProducer.child.signalCode).toBe("SIGKILL");
    // Killed mid-stream: part of the file stored, no plan recorded.
    expect(await storedSamples()).toBeLessThan(night.samples);
    expect((await store.getRun(RUN))?.plannedResults).toBeNull();

    // A GPU worker killed while it holds jobs and more wait for it.
    let atKill: WorkerCounts | undefined;
    await waitFor(
      async () => {
        atKill = await scrapeWorker(victim);
        return inFlight(atKill) > 0 && (await modelQueueCounts()).gpuWaiting > 0;
      },
      60_000,
      "the GPU worker to hold jobs while more wait",
    );
    victim.child.kill("SIGKILL");
    expect(await victim.exited).toBe("SIGKILL");
    expect(inFlight(atKill as WorkerCounts)).toBeGreaterThan(0);
    await brakes.off();
    // Its jobs come back once their locks expire, and run on the survivor.
    await waitFor(
      async () =>
        (await scrapeWorker(survivor)).redelivered > 0 &&
        (await modelQueueCounts()).unfinished === 0,
      60_000,
      "the killed worker's jobs to run again, and the first chunk's jobs to be done",
    );
    await stopGracefully([firstCpu, survivor]);

    // The producer resumed with the same command; it exits 4 for the input errors. No
    // worker runs, so the plan it records leaves the run incomplete.
    const resumed = await startAssay(produceArgs()).done;
    expect(resumed.code, resumed.stderr).toBe(ExitCode.inputErrors);
    const planned = (await store.getRun(RUN))?.plannedResults ?? null;
    expect(planned).not.toBeNull();
    expect(await store.countResults(RUN)).toBeLessThan(planned as number);

    // Second wave. The run's completion lock is held here meanwhile, as another completer
    // would hold it, so the worker storing the last result leaves the run to it: this run is
    // completed by `assay status`, the path the night's operator takes in the morning.
    const completer = await store.lockRunCompletion(RUN, { wait: false });
    expect(completer).not.toBeNull();
    const linked = join(dir, "linked-model");
    symlinkSync(modelDir, linked);
    const secondWave = await Promise.all([cpuWorker(), gpuWorker(linked)]);
    await waitFor(
      async () =>
        (await store.countResults(RUN)) === planned && (await modelQueueCounts()).unfinished === 0,
      120_000,
      "every planned result stored and no job left",
    );
    expect((await modelQueueCounts()).failed).toBe(0);
    await stopGracefully(secondWave);
    expect((await store.getRun(RUN))?.finishedAt).toBeNull();
    await completer?.release();

    // The morning: `assay status` completes the run.
    expect(await cli(["status", RUN, ...distributed])).toBe(0);
    expect((await store.getRun(RUN))?.finishedAt).not.toBeNull();

    const [embeddedTables, distributedTables] = [
      await exportEveryTable(RUN, embedded),
      await exportEveryTable(RUN, services),
    ];
    expect(embeddedTables.selections?.length).toBe(TASKS + 1); // and "solo"
    for (const [table, rows] of Object.entries(embeddedTables)) {
      expect(rows.length, `${table}: rows stored embedded`).toBeGreaterThan(0);
    }
    // Which tables differ first, then how.
    const same = (table: string) =>
      JSON.stringify(comparable(embeddedTables[table] ?? [], PER_RUN_FIELDS)) ===
      JSON.stringify(comparable(distributedTables[table] ?? [], PER_RUN_FIELDS));
    expect(Object.keys(embeddedTables).filter((table) => !same(table))).toEqual([]);

    const [embeddedReport, distributedReport] = [
      await reportJson(RUN, night.prices, embedded),
      await reportJson(RUN, night.prices, services),
    ];
    expect(reportFigures(distributedReport, PER_RUN_FIGURES)).toEqual(
      reportFigures(embeddedReport, PER_RUN_FIGURES),
    );
    // Both priced the verifier: the price table names it as the spec does.
    const cost = (embeddedReport.report as { cost: Record<string, unknown> }).cost;
    expect(cost.verification).toBeGreaterThan(0);
    expect(cost.warnings).toEqual([]);
  });
});
