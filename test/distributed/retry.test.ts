import { mkdtempSync, realpathSync, renameSync, rmSync } from "node:fs";
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
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTextDataset } from "./support/dataset.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

const RUN = "night";
const SAMPLES = 20;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample

describe("assay retry and the failed jobs in assay status", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-retry-"));
  const dataset = join(dir, "night.jsonl");
  const common = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];
  const queues = [...common, "--queue-prefix", prefix];
  let store: Store;
  let admin: pg.Client;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    writeTextDataset(dataset, SAMPLES);
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await admin?.end();
    await store?.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the jobs that used up their attempts, then retries them and the lost results", async () => {
    // Every write of sample s3's results fails, as in a database outage (a retryable
    // SQLSTATE), until the trigger is dropped.
    await admin.query(`
      CREATE FUNCTION "${schema}".outage() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'simulated outage writing %', NEW.sample_id USING ERRCODE = '40001'; END $$;
      CREATE TRIGGER outage BEFORE INSERT ON "${schema}".scores
      FOR EACH ROW WHEN (NEW.sample_id = 's3') EXECUTE FUNCTION "${schema}".outage();`);
    // One job per batch, so only s3's jobs fail; metrics show every row written.
    worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
      extraArgs: ["--concurrency", "1", "--metrics-port", "0"],
    });
    // Two quick attempts, so the failed jobs give up in a second rather than in minutes.
    const transport = await BullmqTransport.connect({
      redisUrl: REDIS_URL,
      prefix,
      attempts: 2,
      backoffMs: 50,
    });
    try {
      await store.startRun({ id: RUN, dataset, spec: DEFAULT_SPEC, transport: "bullmq" });
      const produced = await produce({
        store,
        transport,
        registry: defaultRegistry(),
        dataset,
        spec: DEFAULT_SPEC,
        runId: RUN,
      });
      expect(produced.planned).toBe(PLANNED);
      await waitFor(
        async () =>
          (await store.countResults(RUN)) === PLANNED - 2 &&
          (await transport.queueCounts())[0]?.failed === 2,
        60_000,
        "s3's two jobs to fail and every other result to be stored",
      );
    } finally {
      await transport.close();
    }
    // A result lost after its job completed (restored from an old backup, say).
    await admin.query(
      `DELETE FROM "${schema}".scores WHERE run_id = $1 AND sample_id = 's5' AND scorer = 'f1'`,
      [RUN],
    );

    const status = await assayInProcess(["status", RUN, ...queues, "--json"]);
    expect(status.code, status.stderr).toBe(ExitCode.ok);
    const failed = JSON.parse(status.stdout).failedJobs;
    expect(failed.total).toBe(2);
    expect(
      failed.jobs.map((j: { sampleId: string; scorer: string }) => [j.sampleId, j.scorer]).sort(),
    ).toEqual([
      ["s3", "exact"],
      ["s3", "f1"],
    ]);
    expect(failed.jobs[0]).toMatchObject({ queue: "cpu", attemptsMade: 2 });
    expect(failed.jobs[0].error).toContain("simulated outage writing s3");
    const text = await assayInProcess(["status", RUN, ...queues]);
    expect(text.stdout).toContain(
      `failed jobs 2 (attempts used up); put them back in the queues with: assay retry ${RUN} --queue-prefix ${prefix} --db-schema ${schema}`,
    );
    expect(text.stdout).toMatch(
      / {2}s3 · (exact|f1) · 2 attempts · \S+\n {4}.*simulated outage writing s3/,
    );

    await admin.query(`DROP TRIGGER outage ON "${schema}".scores`);
    // --wait follows the run to its end and prints the summary.
    const retried = await assayInProcess(["retry", RUN, ...queues, "--wait", "--quiet"]);
    expect(retried.code, retried.stderr).toBe(ExitCode.ok);
    expect(retried.stderr).toContain(
      `Re-enqueued 3 jobs of run ${RUN}: 2 failed jobs retried, 1 missing results enqueued.`,
    );
    expect(retried.stdout).toContain(`${PLANNED}/${PLANNED} results`);
    expect(await store.countResults(RUN)).toBe(PLANNED);
    const perSample = await admin.query(
      `SELECT sample_id, count(*)::int AS n FROM "${schema}".scores WHERE run_id = $1
       GROUP BY sample_id HAVING count(*) <> 2`,
      [RUN],
    );
    expect(perSample.rows).toEqual([]);
    // No job wrote a row that was already there: nothing was scored twice.
    const port = /"port":(\d+)/.exec(worker.logs())?.[1];
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/assay_writer_rows_total\{outcome="inserted"\} 41/);
    expect(metrics).toMatch(/assay_writer_rows_total\{outcome="duplicate"\} 0/);

    const after = JSON.parse((await assayInProcess(["status", RUN, ...queues, "--json"])).stdout);
    expect(after).toMatchObject({ done: PLANNED, finished: true, failedJobs: { total: 0 } });
    const again = await assayInProcess(["retry", RUN, ...queues, "--json"]);
    expect(JSON.parse(again.stdout)).toEqual({
      runId: RUN,
      failed: 0,
      retried: 0,
      alreadyStored: 0,
      missingEnqueued: 0,
      missingPending: 0,
      planned: PLANNED,
      skippedMissing: null,
      movedToModelQueue: 0,
      nothingMissing: true,
    });
  });

  it("retries failed jobs only, and says why, when the dataset cannot be read", async () => {
    // A result lost again: missing results are looked for in the dataset.
    await admin.query(
      `DELETE FROM "${schema}".scores WHERE run_id = $1 AND sample_id = 's7' AND scorer = 'exact'`,
      [RUN],
    );
    const recorded = realpathSync(dataset);
    renameSync(dataset, `${dataset}.moved`);
    try {
      const { code, stdout } = await assayInProcess(["retry", RUN, ...queues, "--json"]);
      expect(code).toBe(ExitCode.ok);
      expect(JSON.parse(stdout)).toMatchObject({ failed: 0, planned: null });
      expect(JSON.parse(stdout).skippedMissing).toMatch(
        // The path recorded with links resolved, readable from any folder while it exists.
        new RegExp(`^the dataset ${recorded} cannot be read here; pass --dataset <file>$`),
      );
      const copy = await assayInProcess([
        "retry",
        RUN,
        ...queues,
        "--json",
        "--dataset",
        `${dataset}.moved`,
      ]);
      expect(JSON.parse(copy.stdout)).toMatchObject({
        planned: PLANNED,
        skippedMissing: null,
        missingEnqueued: 1,
      });
    } finally {
      renameSync(`${dataset}.moved`, dataset);
    }
  });

  it("refuses a run that `assay run` scored, saying how to finish it", async () => {
    await store.startRun({ id: "local", dataset, spec: DEFAULT_SPEC, transport: "local" });
    const { code, stderr } = await assayInProcess(["retry", "local", ...queues]);
    expect(code).toBe(ExitCode.refused);
    expect(stderr).toContain("was scored by `assay run`, not by workers");
  });
});
