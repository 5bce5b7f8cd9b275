import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode } from "@assay/cli";
import { DEFAULT_SPEC, produce } from "@assay/pipeline";
import { BullmqTransport, identityOfQueueName, queueNameFor } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { commandAfter, pasteCommand } from "@assay/test-support/paste-command";
import { scoreJob } from "@assay/test-support/score-job";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { Queue } from "bullmq";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";
import { writeTextDataset } from "./support/dataset.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("assay status for an operator on call", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-operator-"));
  const services = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];
  const flags = [...services, "--queue-prefix", prefix];
  const workers: WorkerProcess[] = [];
  let store: Store;
  let admin: pg.Client;

  beforeAll(async () => {
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
  });

  const startWorker = async (extraArgs: string[]): Promise<WorkerProcess> => {
    const worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
      extraArgs,
    });
    workers.push(worker);
    return worker;
  };

  const produceRun = async (runId: string, samples: number): Promise<string> => {
    const dataset = join(dir, `${runId}.jsonl`);
    writeTextDataset(dataset, samples);
    await store.startRun({ id: runId, dataset, spec: DEFAULT_SPEC, transport: "bullmq" });
    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    try {
      await produce({
        store,
        transport,
        registry: defaultRegistry(),
        dataset,
        spec: DEFAULT_SPEC,
        runId,
      });
    } finally {
      await transport.close();
    }
    return dataset;
  };

  it("says which worker died holding jobs, and when they come back, before the locks expire", async () => {
    // Every stored row takes 0.3 s, so jobs stay running long enough to be held at the kill.
    await admin.query(`
      CREATE FUNCTION "${schema}".slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$;
      CREATE TRIGGER slow BEFORE INSERT ON "${schema}".scores
      FOR EACH ROW EXECUTE FUNCTION "${schema}".slow();`);
    const doomed = await startWorker(["--concurrency", "10"]);
    await produceRun("killed", 40);
    const cpu = new Queue(queueNameFor("cpu"), { connection: { url: REDIS_URL }, prefix });
    try {
      await waitFor(
        async () => (await cpu.getActiveCount()) >= 10,
        60_000,
        "the worker to hold 10 jobs",
      );
    } finally {
      await cpu.close();
    }
    // The survivor looks for stalled jobs every second, so it takes the dead worker's jobs
    // back soon after their locks (30 s, the default) expire.
    await startWorker(["--concurrency", "2", "--stalled-interval-ms", "1000"]);
    doomed.child.kill("SIGKILL");
    await doomed.exited;

    // In this process, to look within the 15-30 s the dead worker's locks have left.
    const status = await assayInProcess(["status", "killed", ...flags]);
    expect(status.code, status.stderr).toBe(ExitCode.ok);
    const line = status.stdout
      .split("\n")
      .find((l) => l.includes("belong to workers that are gone"));
    expect(line, status.stdout).toBeDefined();
    expect(line).toMatch(
      new RegExp(
        `^! \\d+ running jobs in cpu belong to workers that are gone \\([^)]*:${doomed.child.pid}:[0-9a-f]{4}\\): nothing is scoring them\\. They go back to waiting within \\d+ s: their locks expire in \\d+ s`,
      ),
    );
    // Seen before the locks expired: nothing but this line says the worker is gone.
    const lockSeconds = Number(/their locks expire in (\d+) s/.exec(line ?? "")?.[1]);
    expect(lockSeconds).toBeGreaterThan(0);
    expect(lockSeconds).toBeLessThanOrEqual(30);
    // The cpu queue's row: one live worker.
    expect(status.stdout).toMatch(/^ {2}cpu +\d+ +\d+ +\d+ +\d+ +1$/m);

    // The survivor is inserting through the trigger: dropping it can lose a deadlock to
    // those inserts (40P01), which Postgres resolves by failing the drop. Drop again.
    await retryOnDeadlock(() => admin.query(`DROP TRIGGER slow ON "${schema}".scores`));
    // As status said: back to waiting once the locks expire, then taken by the survivor.
    // The rows alone do not show it: a write the dead worker had sent may still commit.
    const queue = new Queue(queueNameFor("cpu"), { connection: { url: REDIS_URL }, prefix });
    try {
      await waitFor(
        async () =>
          (await store.countResults("killed")) === 80 &&
          (await queue.getActiveCount()) === 0 &&
          (await queue.getWaitingCount()) === 0,
        180_000,
        "every result of the killed worker's jobs, and its jobs done by the survivor",
      );
    } finally {
      await queue.close();
    }
    const after = await startAssay(["status", "killed", ...flags]).done;
    expect(after.stdout).not.toContain("workers that are gone");
  });

  it("says when a run's jobs wait where no worker serves them, with commands that work as pasted", async () => {
    const runId = "unserved";
    await store.startRun({ id: runId, spec: DEFAULT_SPEC, transport: "bullmq" });
    const spelling = ".models/absent-verifier";
    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    // As an older version queued them: in a queue named after the spelling.
    const spelled = new Queue("gpu-.models_absent-verifier", {
      connection: transport.redis,
      prefix,
    });
    try {
      await transport.enqueue([
        scoreJob("a", { pool: "gpu", model: spelling, runId }),
        scoreJob("b", { pool: "gpu", model: spelling, runId }),
      ]);
      await spelled.add("score", scoreJob("c", { pool: "gpu", model: spelling, runId }), {
        jobId: "c",
      });
    } finally {
      await spelled.close();
      await transport.close();
    }
    const modelQueue = queueNameFor("gpu", spelling);
    // Named after the model's identity: its absolute path.
    expect(identityOfQueueName(modelQueue)).toBe(resolve(ROOT, spelling));

    const status = await startAssay(["status", runId, ...flags]).done;
    expect(status.code, status.stderr).toBe(ExitCode.ok);
    const commonFlags = `--queue-prefix ${prefix} --db-schema ${schema}`;
    // --redis is the default REDIS_URL here, so the commands leave it out; --db is not.
    const urls = `--db ${DATABASE_URL}`;
    expect(status.stdout).toContain(
      `! 2 of this run's jobs wait in ${modelQueue} and no worker serves it; start one with: ` +
        `assay worker --pool gpu --model ${spelling} ${commonFlags} ${urls}   # from the folder where the run was produced`,
    );
    const stray = `! 1 of this run's jobs wait in gpu-.models_absent-verifier, which is named after the spelling "${spelling}"`;
    expect(status.stdout).toContain(stray);
    const move = commandAfter(status.stdout, stray);
    expect(move).toBe(`assay retry ${runId} ${commonFlags} ${urls}`);

    const moved = await pasteCommand(move);
    expect(moved.code, moved.stderr).toBe(ExitCode.ok);
    expect(moved.stderr).toContain(
      "1 jobs waiting in a queue named after a spelling of their model were moved to their model's queue.",
    );

    const after = JSON.parse((await startAssay(["status", runId, ...flags, "--json"]).done).stdout);
    const waiting = Object.fromEntries(
      after.queues.map((q: { queue: string; waiting: number }) => [q.queue, q.waiting]),
    );
    expect(waiting[modelQueue]).toBe(3);
    // Emptied, the spelled queue is gone: neither it nor a warning about it outlives the move.
    expect(waiting).not.toHaveProperty("gpu-.models_absent-verifier");
    const text = (await startAssay(["status", runId, ...flags]).done).stdout;
    expect(text).not.toContain("gpu-.models_absent-verifier");
    expect(text).not.toMatch(/empty queues that no worker serves/);
  });

  it("retry reads nothing when nothing is missing, and a run whose rows come back finishes anew", async () => {
    const runId = "restored";
    await startWorker([]);
    await produceRun(runId, 10);
    await waitFor(
      async () => (await store.countResults(runId)) === 20,
      120_000,
      "the run's results",
    );
    const finished = await startAssay(["status", runId, ...flags, "--json"]).done;
    const firstFinish = JSON.parse(finished.stdout).finishedAt as string;
    expect(firstFinish).not.toBeNull();

    // A dataset that cannot be read at all: a retry that needs nothing never opens it.
    const noop = await startAssay([
      "retry",
      runId,
      ...flags,
      "--dataset",
      join(dir, "no-such-file.jsonl"),
    ]).done;
    expect(noop.code, noop.stderr).toBe(ExitCode.ok);
    expect(noop.stderr).toContain(
      "Every one of the run's 20 planned results is stored: nothing is missing, the dataset was not read again.",
    );

    await admin.query(
      `DELETE FROM "${schema}".scores WHERE run_id = $1 AND sample_id IN ('s1', 's2')`,
      [runId],
    );
    const restored = await startAssay(["retry", runId, ...flags, "--wait", "--quiet"]).done;
    expect(restored.code, restored.stderr).toBe(ExitCode.ok);
    expect(restored.stderr).toContain("4 missing results enqueued");
    const run = await store.getRun(runId);
    const secondFinish = new Date(run?.finishedAt ?? 0).toISOString();
    expect(Date.parse(secondFinish)).toBeGreaterThan(Date.parse(firstFinish));
    expect(restored.stdout).toContain(`finished ${secondFinish}`);
  });
});

async function retryOnDeadlock<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await statement();
    } catch (error) {
      if ((error as { code?: string }).code !== "40P01" || attempt >= 5) throw error;
    }
  }
}
