import { jobIdOf, resultKeyOfJob, type ScoreJob } from "@assay/core";
import { BullmqTransport, DEFAULT_PREFIX } from "@assay/queue";
import { sample } from "@assay/test-support/samples";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAssay } from "./support/cli-parse.js";
import { assayArgsOf } from "./support/entry-points.js";
import { type Container, containersOf, find, loadManifests } from "./support/manifests.js";

// KEDA's redis scaler reads the length of the lists the ScaledObjects name. This checks,
// on a real Redis with the project's own transport, that those lists are where BullMQ keeps
// the queued and in-flight jobs of the queues the workers serve.
describe("the lists KEDA watches", () => {
  const manifests = loadManifests();
  const prefix = freshPrefix();
  /** A ScaledObject's list under this test's prefix instead of the deployed `assay`. */
  const listOf = (pool: "cpu" | "gpu", state: "wait" | "active") => {
    const lists = find(manifests, "ScaledObject", `worker-${pool}`).spec.triggers.map(
      (trigger: { metadata: { listName: string } }) => trigger.metadata.listName,
    ) as string[];
    const list = lists.find((name) => name.endsWith(`:${state}`)) as string;
    expect(list.startsWith(`${DEFAULT_PREFIX}:`)).toBe(true);
    return `${prefix}:${list.slice(DEFAULT_PREFIX.length + 1)}`;
  };
  let transport: BullmqTransport;
  let redis: Redis;

  beforeAll(async () => {
    transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await transport.close();
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it("count the jobs waiting and in flight for each pool", async () => {
    // The model the GPU Deployment serves, as a spec would name it.
    const gpuWorker = containersOf(find(manifests, "Deployment", "worker-gpu"))[0] as Container;
    const { model } = (await parseAssay(assayArgsOf(gpuWorker.command ?? []) ?? [])).options;
    const job = (id: string, pool: "cpu" | "gpu"): ScoreJob => ({
      runId: "infra",
      pool,
      rule: "r",
      scorer: pool === "cpu" ? { name: "exact", args: {} } : { name: "verifier", args: { model } },
      sample: sample(id),
    });
    await transport.enqueue([
      ...Array.from({ length: 7 }, (_, i) => job(`c${i}`, "cpu")),
      ...Array.from({ length: 5 }, (_, i) => job(`g${i}`, "gpu")),
    ]);
    const length = (list: string) => redis.llen(list);
    expect(await redis.type(listOf("cpu", "wait"))).toBe("list");
    expect(await length(listOf("cpu", "wait"))).toBe(7);
    expect(await length(listOf("gpu", "wait"))).toBe(5);
    expect(await length(listOf("cpu", "active"))).toBe(0);

    // A worker holding 3 jobs: they move from the wait list to the active list.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const consumer = transport.consume("cpu", () => released, { concurrency: 3 });
    try {
      await waitFor(async () => (await length(listOf("cpu", "active"))) === 3, 10_000, "3 active");
      expect(await redis.type(listOf("cpu", "active"))).toBe("list");
      expect(await length(listOf("cpu", "wait"))).toBe(4);
    } finally {
      release();
      await consumer.stop();
    }
    // A stopped (drained) worker finished its 3 and took no more.
    expect(await length(listOf("cpu", "active"))).toBe(0);
    expect(await length(listOf("cpu", "wait"))).toBe(4);
  });

  it("keep a pool above zero while a job waits for its next retry", async () => {
    // A retry in backoff sits in the `delayed` sorted set, which no trigger reads; only the
    // cooldown keeps the pool up until it is due. The longest wait is the last backoff.
    const retried: ScoreJob = {
      runId: "infra-retry",
      pool: "cpu",
      rule: "r",
      scorer: { name: "exact", args: {} },
      sample: sample("retry"),
    };
    await transport.enqueue([retried]);
    const queue = new Queue("cpu", { connection: redis, prefix });
    try {
      const stored = await queue.getJob(jobIdOf(resultKeyOfJob(retried)));
      const attempts = stored?.opts.attempts ?? 0;
      const backoff = stored?.opts.backoff as { type: string; delay: number };
      expect(attempts).toBeGreaterThan(1);
      expect(backoff.type).toBe("exponential");
      const longestDelaySeconds = (backoff.delay * 2 ** (attempts - 2)) / 1000;
      for (const object of manifests.filter((m) => m.kind === "ScaledObject")) {
        expect(object.spec.cooldownPeriod, object.metadata.name).toBeGreaterThan(
          longestDelaySeconds,
        );
      }
    } finally {
      await queue.close();
    }
  });
});
