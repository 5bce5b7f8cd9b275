import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { commandAfter } from "@assay/test-support/paste-command";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";
import { writeTextDataset } from "./support/dataset.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

// `assay retry --wait` waits on jobs it did not add itself (the producer's, still queued):
// with no worker on their queue it says so, as `produce --wait` does, with the command
// that serves the queue; once that worker runs, the wait ends with the run complete.

describe("retry --wait on a queue no worker serves", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-retry-unserved-"));
  const dataset = join(dir, "d.jsonl");
  const flags = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];
  let worker: WorkerProcess | undefined;
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the queue and the worker command, then completes once it runs", async () => {
    writeTextDataset(dataset, 5);
    const migrated = await startAssay(["migrate", "--db", DATABASE_URL, "--db-schema", schema])
      .done;
    expect(migrated.code, migrated.stderr).toBe(ExitCode.ok);
    const produced = startAssay([
      ...["produce", dataset, "--run-id", "queued", "--queue-prefix", prefix, "--quiet"],
      ...flags,
    ]);
    const done = await produced.done;
    expect(done.code, done.stderr).toBe(ExitCode.ok);

    const retry = startAssay(["retry", "queued", "--wait", ...flags]);
    const line = "! No worker serves queue cpu";
    await waitFor(async () => retry.stderr().includes(line), 60_000, "retry to name the queue");
    expect(commandAfter(retry.stderr(), line)).toBe(
      `assay worker --pool cpu --queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}`,
    );

    worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
    });
    const waited = await retry.done;
    expect(waited.code, waited.stderr).toBe(ExitCode.ok);
    // The line is said once, not at every look.
    expect(waited.stderr.split(line)).toHaveLength(2);
  });
});
