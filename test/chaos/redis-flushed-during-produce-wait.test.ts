/**
 * Redis flushed while `assay produce --wait` waits for the workers: the jobs it waits for
 * no longer exist. The wait must notice (stored plus queued falls short of planned) and
 * stop with exit 5, suggesting `assay retry` with the flags that find the run, instead of
 * waiting forever; that retry then completes the run, each result once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import {
  DATABASE_URL,
  dropSchema,
  freshPrefix,
  freshSchema,
  waitFor,
} from "@assay/test-support/services";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { cpuQueueCounts, unfinished } from "../distributed/support/cpu-queue.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { bounded, storedKeys } from "../distributed/support/stored-keys.js";
import { startCpuWorker } from "../distributed/support/worker-process.js";

const RUN = "flushed";
const SAMPLES = 200;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample
// The exit code of an unreachable or misbehaving service (docs/cli.md, "Exit codes").
const UNAVAILABLE = 5;

describe("chaos: Redis flushed during assay produce --wait", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-flushed-"));
  const dataset = join(dir, "data.jsonl");
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startRedis(["--maxmemory-policy", "noeviction"]);
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
    writeTextDataset(dataset, SAMPLES);
  });
  afterAll(async () => {
    await redis?.remove();
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  const services = () => [
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--redis",
    redis.url,
    "--queue-prefix",
    prefix,
  ];

  it("stops waiting for jobs that no longer exist and suggests assay retry", async () => {
    const produce = startAssay(["produce", dataset, ...services(), "--run-id", RUN, "--wait"]);
    // No worker runs: the producer enqueues everything, then waits.
    await waitFor(
      async () => {
        if (produce.child.exitCode !== null) throw new Error(`produce ended: ${produce.stderr()}`);
        return (
          produce.stderr().includes(`Enqueued ${PLANNED} jobs`) &&
          (await cpuQueueCounts(redis.url, prefix)).waiting === PLANNED
        );
      },
      60_000,
      "the producer to enqueue the run and wait",
    );
    await flushAll(redis.url);
    expect(unfinished(await cpuQueueCounts(redis.url, prefix)), "the jobs are gone").toBe(0);
    expect(produce.child.exitCode, "produce is still waiting").toBeNull();

    const failed = await bounded(produce.done, 60_000, "produce --wait to notice the lost jobs");
    expect(failed.stderr).toContain(
      `${PLANNED} of the run's ${PLANNED} results can no longer arrive`,
    );
    expect(failed.stderr).toContain(
      `assay retry ${RUN} --queue-prefix ${prefix} --db-schema ${schema} --wait`,
    );
    expect(failed.code).toBe(UNAVAILABLE);

    const worker = await startCpuWorker({
      redisUrl: redis.url,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
    });
    try {
      const retry = await bounded(
        startAssay(["retry", RUN, ...services(), "--wait", "--quiet"]).done,
        90_000,
        "assay retry --wait to complete the run",
      );
      expect(retry.code, retry.stderr).toBe(ExitCode.ok);
      expect(await storedKeys({ schema, runId: RUN })).toEqual({
        rows: PLANNED,
        distinctKeys: PLANNED,
      });
    } finally {
      worker.child.kill("SIGKILL");
    }
  });
});

async function flushAll(url: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.flushall();
  } finally {
    redis.disconnect();
  }
}
