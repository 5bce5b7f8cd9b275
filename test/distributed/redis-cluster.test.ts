import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { ConfigError } from "@assay/core";
import {
  BullmqTransport,
  connectRedisOrCluster,
  queueNameFor,
  type RedisConnection,
  scanKeys,
} from "@assay/queue";
import { openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { type OwnCluster, startRedisCluster } from "@assay/test-support/redis-cluster";
import { scoreJob } from "@assay/test-support/score-job";
import { DATABASE_URL, deletePrefix, dropSchema, freshSchema } from "@assay/test-support/services";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTextDataset } from "./support/dataset.js";
import { storedKeys } from "./support/stored-keys.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

const SAMPLES = 50;
// The default prefix: the cluster is this test's own. Its CPU queue and this model's queue
// hash to slots of different masters ({assay:cpu} 14540, {assay:gpu-org_2fjudge} 138).
const PREFIX = "assay";
const MODEL = "org/judge";

describe("produce and work through a Redis Cluster", () => {
  const schema = freshSchema();
  const dir = mkdtempSync(join(tmpdir(), "assay-cluster-"));
  const dataset = join(dir, "data.jsonl");
  let cluster: OwnCluster;
  let store: Store;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    writeTextDataset(dataset, SAMPLES);
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await store?.close();
    await dropSchema(schema);
    await cluster?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores every planned result once, with each queue in a slot of its own", async () => {
    worker = await startCpuWorker({
      redisUrl: cluster.url,
      databaseUrl: DATABASE_URL,
      schema,
      prefix: PREFIX,
      extraArgs: ["--concurrency", "8"],
    });
    const produced = await assayInProcess([
      "produce",
      dataset,
      ...["--db", DATABASE_URL, "--db-schema", schema, "--redis", cluster.url],
      ...["--queue-prefix", PREFIX, "--run-id", "cluster", "--wait", "--quiet"],
    ]);
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    expect(await storedKeys({ runId: "cluster", schema })).toEqual({
      rows: 2 * SAMPLES,
      distinctKeys: 2 * SAMPLES,
    });
    const run = await store.getRun("cluster");
    expect(run?.plannedResults).toBe(2 * SAMPLES);
    expect(run?.finishedAt).not.toBeNull();
    const status = await assayInProcess([
      "status",
      "cluster",
      ...["--db", DATABASE_URL, "--db-schema", schema, "--redis", cluster.url],
      ...["--queue-prefix", PREFIX, "--json"],
    ]);
    expect(status.code, status.stderr).toBe(ExitCode.ok);
    // Workers are found on the node their connections are on (CLIENT LIST of each node).
    expect(JSON.parse(status.stdout)).toMatchObject({
      done: 2 * SAMPLES,
      queueHealth: [{ queue: "cpu", workers: [expect.any(String)], workersKnown: true }],
      redisEvictionPolicy: "noeviction",
    });

    const transport = await BullmqTransport.connect({ redisUrl: cluster.url, prefix: PREFIX });
    try {
      expect(transport.redis).toBeInstanceOf(Cluster);
      await transport.enqueue([scoreJob("s0", { pool: "gpu", model: MODEL })]);
      const gpu = queueNameFor("gpu", MODEL);
      const slots = await Promise.all(
        ["cpu", gpu].map((queue) => slotOf(transport.redis, `${transport.queuePrefixOf(queue)}:x`)),
      );
      expect(slots[0]).not.toBe(slots[1]);
      const masterOf = (slot: number) => (transport.redis as Cluster).slots[slot]?.[0];
      expect(masterOf(slots[0] as number)).not.toBe(masterOf(slots[1] as number));
      // Found on both masters that hold them, by name, with the CPU queue drained.
      const counts = await transport.queueCounts();
      expect(counts.map((queue) => queue.queue)).toEqual(["cpu", gpu].sort());
      expect(counts.find((queue) => queue.queue === "cpu")).toMatchObject({
        waiting: 0,
        active: 0,
        failed: 0,
      });
    } finally {
      await transport.close();
    }
  });

  it("keeps a prefix's own hash tag: every queue in that one slot", async () => {
    const transport = await BullmqTransport.connect({ redisUrl: cluster.url, prefix: "{one}" });
    try {
      await transport.enqueue([scoreJob("s0"), scoreJob("s0", { pool: "gpu", model: MODEL })]);
      const gpu = queueNameFor("gpu", MODEL);
      expect([transport.queuePrefixOf("cpu"), transport.queuePrefixOf(gpu)]).toEqual([
        "{one}",
        "{one}",
      ]);
      const counts = await transport.queueCounts();
      expect(counts.map((queue) => [queue.queue, queue.waiting])).toEqual(
        [
          ["cpu", 1],
          [gpu, 1],
        ].sort(),
      );
    } finally {
      await transport.close();
    }
    await deletePrefix("{one}", cluster.url);
  });

  it("refuses a prefix whose braces are not one hash tag, naming the flag", async () => {
    for (const [prefix, problem] of [
      ["assay{", 'a "{" without its "}"'],
      ["as}say", 'a "}" with no "{" before it'],
      ["{}assay", 'an empty hash tag "{}"'],
    ]) {
      const connecting = BullmqTransport.connect({ redisUrl: cluster.url, prefix });
      await expect(connecting).rejects.toBeInstanceOf(ConfigError);
      await expect(connecting).rejects.toThrow(`--queue-prefix "${prefix}" has ${problem}`);
    }
    const refused = await assayInProcess([
      "produce",
      dataset,
      ...["--db", DATABASE_URL, "--db-schema", schema, "--redis", cluster.url],
      ...["--queue-prefix", "assay{"],
    ]);
    expect(refused.code).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain(
      '--queue-prefix "assay{" has a "{" without its "}": on a Redis Cluster',
    );
  });

  it("deletes a prefix's keys from every master", async () => {
    // Stopped first: a running worker writes keys of its queue (the stalled-job check's).
    worker?.child.kill("SIGTERM");
    expect(await worker?.exited).toBe(0);
    worker = undefined;
    await deletePrefix(PREFIX, cluster.url);
    const redis = await connectRedisOrCluster(cluster.url);
    try {
      const left: string[] = [];
      await scanKeys(redis, "*", (keys) => {
        left.push(...keys);
      });
      expect(left).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});

async function slotOf(redis: RedisConnection, key: string): Promise<number> {
  return Number(await redis.cluster("KEYSLOT", key));
}
