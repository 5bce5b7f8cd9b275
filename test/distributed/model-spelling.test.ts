import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode } from "@assay/cli";
import { makeTinyModel } from "@assay/model-tools";
import { identityOfQueueName } from "@assay/queue";
import { openStore, type Store } from "@assay/store";
import { cliArgs } from "@assay/test-support/built-entry";
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
import { startAssay } from "./support/assay-process.js";
import { writeTextDataset } from "./support/dataset.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SAMPLES = 6;

describe("a verifier spelled one way in the spec and another on the GPU worker", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const name = `spelling-${randomUUID().slice(0, 8)}`;
  // Relative to the folder the producer and the worker run in, as an operator writes it.
  const modelDir = join(ROOT, ".models", name);
  const dir = mkdtempSync(join(tmpdir(), "assay-spelling-"));
  const services = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];
  const flags = [...services, "--queue-prefix", prefix];
  let store: Store;
  let worker: ChildProcess | undefined;
  let workerLog = "";

  beforeAll(async () => {
    await makeTinyModel(modelDir);
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  });
  afterAll(async () => {
    worker?.kill("SIGKILL");
    await store?.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(modelDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores every job: producer and worker agree on the model's queue", async () => {
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        name: "spelling",
        default: { scorers: [{ name: "verifier", args: { model: `.models/${name}` } }] },
      }),
    );
    const dataset = join(dir, "data.jsonl");
    writeTextDataset(dataset, SAMPLES);

    worker = spawn(
      process.execPath,
      cliArgs([
        "worker",
        "--pool",
        "gpu",
        "--model",
        `./.models/${name}/`,
        "--concurrency",
        "4",
        ...flags,
      ]),
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    worker.stdout?.on("data", (chunk) => {
      workerLog += chunk;
    });
    worker.stderr?.on("data", (chunk) => {
      workerLog += chunk;
    });
    await waitFor(async () => workerLog.includes('"msg":"worker started"'), 120_000, "the worker");

    const produced = await startAssay([
      "produce",
      dataset,
      "--spec",
      spec,
      "--run-id",
      "m",
      ...flags,
    ]).done;
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    await waitFor(
      async () => (await store.countResults("m")) === SAMPLES,
      240_000,
      "the worker to score the run's jobs",
    );
    const status = JSON.parse((await startAssay(["status", "m", ...flags, "--json"]).done).stdout);
    const queue = /"queue":"(gpu-[^"]+)"/.exec(workerLog)?.[1];
    expect(queue).toBeDefined();
    expect(identityOfQueueName(queue as string)).toBe(modelDir);
    expect(status.queues.map((q: { queue: string }) => q.queue)).toEqual([queue]);
    expect(status).toMatchObject({ done: SAMPLES, finished: true });
  });
});
