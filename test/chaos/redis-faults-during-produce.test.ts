/**
 * `assay produce` on a Redis that fails under it: killed, out of memory (noeviction), a
 * read-only replica (and `assay retry` on a replica). Each must end with one line naming the cause and the command that
 * resumes (exit 5), not "unexpected failure"; once the fault is removed, that command
 * enqueues the whole run, each job once.
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

// The exit code of an unreachable or misbehaving service (docs/cli.md, "Exit codes").
const UNAVAILABLE = 5;
const NOEVICTION = ["--maxmemory-policy", "noeviction"];

describe("chaos: Redis faults during assay produce", () => {
  const schema = freshSchema();
  const dir = mkdtempSync(join(tmpdir(), "assay-redis-faults-"));
  const servers: OwnRedis[] = [];

  beforeAll(async () => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
  });
  afterAll(async () => {
    for (const server of servers) await server.remove();
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  async function redisServer(args: string[]): Promise<OwnRedis> {
    const server = await startRedis(args);
    servers.push(server);
    return server;
  }

  /** A dataset of `samples` lines: twice as many jobs (exact and f1 each). */
  function dataset(name: string, samples: number): string {
    const file = join(dir, `${name}.jsonl`);
    writeTextDataset(file, samples);
    return file;
  }

  const produceArgs = (file: string, runId: string, redisUrl: string, prefix: string) => [
    "produce",
    file,
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--redis",
    redisUrl,
    "--queue-prefix",
    prefix,
    "--run-id",
    runId,
  ];

  /** The failed produce: exit 5, the cause, the command that resumes, no stack trace. */
  function expectClearFailure(
    result: { code: number; stderr: string },
    cause: RegExp,
    runId: string,
    prefix: string,
  ): void {
    expect(result.stderr, result.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(result.stderr).toMatch(cause);
    expect(result.stderr).toMatch(
      new RegExp(`assay produce \\S+ --run-id ${runId} .*--queue-prefix ${prefix}`),
    );
    expect(result.stderr).toContain(`--db-schema ${schema}`);
    expect(result.code).toBe(UNAVAILABLE);
  }

  it("a killed Redis: lost the connection, then the rerun completes the run once", async () => {
    const redis = await redisServer(NOEVICTION);
    const prefix = freshPrefix();
    // More jobs than the producer lets wait in a queue (20,000): with no worker it is
    // still producing, held back, when Redis dies.
    const file = dataset("killed", 12_000);
    const produce = startAssay(produceArgs(file, "killed", redis.url, prefix));
    await waitFor(
      async () => {
        if (produce.child.exitCode !== null) throw new Error(`produce ended: ${produce.stderr()}`);
        return (await cpuQueueCounts(redis.url, prefix)).waiting >= 15_000;
      },
      90_000,
      "the producer to fill the queue",
    );
    await redis.kill();
    await expect(ping(redis.url), "the server is gone").rejects.toThrow();

    const failed = await bounded(produce.done, 60_000, "produce to end after Redis died");
    expectClearFailure(
      failed,
      /lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+/,
      "killed",
      prefix,
    );

    // Restarted empty (it kept no data): the rerun, with a worker, scores the whole run.
    await redis.restart();
    const worker = await startCpuWorker({
      redisUrl: redis.url,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
      extraArgs: ["--concurrency", "100"],
    });
    try {
      const rerun = await startAssay([
        ...produceArgs(file, "killed", redis.url, prefix),
        "--wait",
        "--quiet",
      ]).done;
      expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
      expect(await storedKeys({ schema, runId: "killed" })).toEqual({
        rows: 24_000,
        distinctKeys: 24_000,
      });
    } finally {
      worker.child.kill("SIGKILL");
    }
  });

  it("Redis out of memory: refused writes, then the rerun enqueues every job once", async () => {
    const redis = await redisServer([...NOEVICTION, "--maxmemory", "3mb"]);
    const prefix = freshPrefix();
    const file = dataset("oom", 5000);
    const failed = await bounded(
      startAssay(produceArgs(file, "oom", redis.url, prefix)).done,
      90_000,
      "produce on a full Redis to end",
    );
    // Redis counts every command it refused for memory.
    expect(await errorCount(redis.url, "OOM"), "writes refused for memory").toBeGreaterThan(0);
    expectClearFailure(
      failed,
      /Redis at \S+ refused writes: OOM command not allowed/,
      "oom",
      prefix,
    );

    await configSet(redis.url, "maxmemory", "0");
    const rerun = await startAssay(produceArgs(file, "oom", redis.url, prefix)).done;
    expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
    expect((await cpuQueueCounts(redis.url, prefix)).waiting).toBe(10_000);
  });

  it("a read-only replica: named as such, then producing to the primary works", async () => {
    const primary = await redisServer(NOEVICTION);
    const replica = await redisServer([
      ...NOEVICTION,
      "--replicaof",
      "127.0.0.1",
      new URL(primary.url).port,
    ]);
    const prefix = freshPrefix();
    const file = dataset("replica", 200);
    const failed = await bounded(
      startAssay(produceArgs(file, "replica", replica.url, prefix)).done,
      60_000,
      "produce on a replica to end",
    );
    expect(await withRedis(replica.url, (r) => r.info("replication"))).toMatch(/^role:slave\r?$/m);
    expect(
      await errorCount(replica.url, "READONLY"),
      "writes refused as read-only",
    ).toBeGreaterThan(0);
    expectClearFailure(failed, /Redis at \S+ is a read-only replica/, "replica", prefix);
    // Refused before the run was registered: no run without a plan is left behind.
    const store = await openStore({ databaseUrl: DATABASE_URL, schema });
    try {
      expect(await store.getRun("replica")).toBeUndefined();
    } finally {
      await store.close();
    }

    const rerun = await startAssay(produceArgs(file, "replica", primary.url, prefix)).done;
    expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
    expect(unfinished(await cpuQueueCounts(primary.url, prefix))).toBe(400);
  });

  it("assay retry on a read-only replica: named as such, then retrying on the primary works", async () => {
    const primary = await redisServer(NOEVICTION);
    const replica = await redisServer([
      ...NOEVICTION,
      "--replicaof",
      "127.0.0.1",
      new URL(primary.url).port,
    ]);
    const prefix = freshPrefix();
    const file = dataset("retry-replica", 100);
    const produced = await startAssay(produceArgs(file, "retry-replica", primary.url, prefix)).done;
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    // The jobs vanish (on the replica too): retry has all 200 to put back.
    await withRedis(primary.url, (redis) => redis.flushall());
    const retryArgs = (redisUrl: string) => [
      "retry",
      "retry-replica",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--redis",
      redisUrl,
      "--queue-prefix",
      prefix,
    ];

    const failed = await bounded(
      startAssay(retryArgs(replica.url)).done,
      60_000,
      "retry on a replica to end",
    );
    expect(
      await errorCount(replica.url, "READONLY"),
      "writes refused as read-only",
    ).toBeGreaterThan(0);
    expect(failed.stderr, failed.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(failed.stderr).toMatch(/Redis at \S+ is a read-only replica/);
    expect(failed.stderr).toContain(
      `rerun: assay retry retry-replica --queue-prefix ${prefix} --db-schema ${schema}`,
    );
    expect(failed.code).toBe(UNAVAILABLE);

    const rerun = await startAssay(retryArgs(primary.url)).done;
    expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
    expect(unfinished(await cpuQueueCounts(primary.url, prefix))).toBe(200);
  });
});

async function withRedis<T>(url: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

const ping = (url: string) => withRedis(url, (redis) => redis.ping());
/** Commands the server answered with this error (INFO errorstats). */
async function errorCount(url: string, error: string): Promise<number> {
  const stats = await withRedis(url, (redis) => redis.info("errorstats"));
  return Number(new RegExp(`^errorstat_${error}:count=(\\d+)`, "m").exec(stats)?.[1] ?? 0);
}
const configSet = (url: string, key: string, value: string) =>
  withRedis(url, (redis) => redis.config("SET", key, value));
