/**
 * `assay produce --wait` on a Postgres server that is kill -9ed while it follows the run:
 * it must end with one clear line (the server, the cause, the produce command that
 * resumes) and exit 5, not crash on EPIPE or hang; rerun once the server is back, with a
 * worker, the run completes with every result stored once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { cpuQueueCounts } from "../distributed/support/cpu-queue.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";
import { storedKeys } from "../distributed/support/stored-keys.js";
import { startCpuWorker } from "../distributed/support/worker-process.js";

const RUN = "pg-produce";
const SAMPLES = 500;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample
const SCHEMA = "assay";
// The exit code of an unreachable service (docs/cli.md, "Exit codes").
const UNAVAILABLE = 5;

describe("chaos: Postgres killed under assay produce --wait", () => {
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-produce-"));
  const dataset = join(dir, "data.jsonl");
  let postgres: OwnPostgres;

  beforeAll(async () => {
    postgres = await startPostgres();
    const store = await openStore({ databaseUrl: postgres.url, schema: SCHEMA, migrate: true });
    await store.close();
    writeTextDataset(dataset, SAMPLES);
  });
  afterAll(async () => {
    await postgres?.remove();
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const args = () => [
    "produce",
    dataset,
    "--db",
    postgres.url,
    "--db-schema",
    SCHEMA,
    "--redis",
    REDIS_URL,
    "--queue-prefix",
    prefix,
    "--run-id",
    RUN,
    "--wait",
  ];

  it("ends with a clear error and exit 5, and the rerun completes the run once", async () => {
    // No worker yet: the producer enqueues the run, then follows it in Postgres.
    const produce = startAssay(args());
    await waitFor(
      async () => {
        if (produce.child.exitCode !== null) throw new Error(`produce ended: ${produce.stderr()}`);
        return (
          produce.stderr().includes(`Enqueued ${PLANNED} jobs`) &&
          (await cpuQueueCounts(REDIS_URL, prefix)).waiting === PLANNED
        );
      },
      60_000,
      "the producer to enqueue the run and wait",
    );
    await postgres.kill();
    await expect(
      storedKeys({ url: postgres.url, runId: RUN, schema: SCHEMA }),
      "the server is gone",
    ).rejects.toThrow();

    const failed = await produce.done;
    expect(failed.stderr, failed.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(failed.stderr).toMatch(/lost the connection to Postgres at .*127\.0\.0\.1/);
    expect(failed.stderr).toMatch(
      new RegExp(
        `assay produce \\S+ --run-id ${RUN} --queue-prefix ${prefix} --db-schema ${SCHEMA}`,
      ),
    );
    expect(failed.code).toBe(UNAVAILABLE);

    await postgres.restart();
    const worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: postgres.url,
      schema: SCHEMA,
      prefix,
    });
    try {
      const rerun = await startAssay([...args(), "--quiet"]).done;
      expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
      expect(await storedKeys({ url: postgres.url, runId: RUN, schema: SCHEMA })).toEqual({
        rows: PLANNED,
        distinctKeys: PLANNED,
      });
    } finally {
      worker.child.kill("SIGKILL");
    }
  });
});
