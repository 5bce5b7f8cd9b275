import { type ScoreJob, UnrecoverableJobError } from "@assay/core";
import { scoreJob } from "@assay/test-support/score-job";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { afterEach, describe, expect, it } from "vitest";
import {
  BullmqTransport,
  type BullmqTransportOptions,
  queueNameFor,
  requeueJobs,
} from "../src/index.js";

const open: Array<{ transport: BullmqTransport; prefix: string }> = [];

async function transport(options: Partial<BullmqTransportOptions> = {}): Promise<BullmqTransport> {
  const prefix = freshPrefix();
  const created = await BullmqTransport.connect({
    redisUrl: REDIS_URL,
    prefix,
    backoffMs: 10,
    ...options,
  });
  open.push({ transport: created, prefix });
  return created;
}

afterEach(async () => {
  for (const { transport, prefix } of open.splice(0)) {
    await transport.close();
    await deletePrefix(prefix);
  }
});

const jobs = (count: number, runId = "run-1"): ScoreJob[] =>
  Array.from({ length: count }, (_, i) => scoreJob(`s${i}`, { runId }));

const waitingIn = async (t: BullmqTransport, queue: string): Promise<number> =>
  (await t.queueCounts()).find((counts) => counts.queue === queue)?.waiting ?? 0;

describe("BullmqTransport", () => {
  it("adds a job once however often it is enqueued (deterministic job ids)", async () => {
    const t = await transport({ addChunkSize: 7 });
    await t.enqueue(jobs(25));
    await t.enqueue(jobs(25));
    await t.enqueue(jobs(30));
    expect(await waitingIn(t, "cpu")).toBe(30);
  });

  it("puts GPU jobs in one queue per model and CPU jobs in the cpu queue", async () => {
    const t = await transport();
    await t.enqueue([
      scoreJob("a"),
      scoreJob("b", { pool: "gpu", model: "qwen3-0.6b" }),
      scoreJob("c", { pool: "gpu", model: "org/big:v2" }),
      scoreJob("d", { pool: "gpu", model: "qwen3-0.6b" }),
    ]);
    const counts = await t.queueCounts();
    expect(counts.map((c) => [c.queue, c.waiting])).toEqual(
      [
        ["cpu", 1],
        [queueNameFor("gpu", "org/big:v2"), 1],
        [queueNameFor("gpu", "qwen3-0.6b"), 2],
      ].sort(),
    );
  });

  it("hands every job to the handler of its pool", async () => {
    const t = await transport();
    const seen: string[] = [];
    const consumer = t.consume("gpu", async (job) => void seen.push(job.sample.id), {
      concurrency: 4,
      model: "m1",
    });
    await t.enqueue([
      scoreJob("x", { pool: "gpu", model: "m1" }),
      scoreJob("y", { pool: "gpu", model: "m2" }),
    ]);
    await waitFor(async () => seen.length === 1, 10_000, "the m1 job");
    await consumer.stop();
    expect(seen).toEqual(["x"]);
    expect(await waitingIn(t, queueNameFor("gpu", "m2"))).toBe(1);
  });

  it("retries a job that fails with a transient error", async () => {
    const t = await transport();
    let calls = 0;
    let done = false;
    t.consume(
      "cpu",
      async () => {
        calls += 1;
        if (calls < 3) throw new Error("connection to Postgres lost");
        done = true;
      },
      { concurrency: 1 },
    );
    await t.enqueue(jobs(1));
    await waitFor(async () => done, 15_000, "the third attempt");
    expect(calls).toBe(3);
  });

  it("does not retry a job that fails with UnrecoverableJobError", async () => {
    const t = await transport();
    let calls = 0;
    t.consume(
      "cpu",
      async () => {
        calls += 1;
        throw new UnrecoverableJobError("payload cannot be read");
      },
      { concurrency: 1 },
    );
    await t.enqueue(jobs(1));
    await waitFor(async () => (await t.queueCounts())[0]?.failed === 1, 10_000, "the job to fail");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(1);
  });

  it("makes enqueue wait while the queue is above its high-water mark", async () => {
    const t = await transport({ highWaterMark: 10, addChunkSize: 5, backpressurePollMs: 20 });
    let finished = false;
    const enqueued = t.enqueue(jobs(40)).then(() => {
      finished = true;
    });
    await waitFor(async () => (await waitingIn(t, "cpu")) >= 10, 5000, "the queue to fill");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(false);
    expect(await waitingIn(t, "cpu")).toBe(10);

    const handled = new Set<string>();
    t.consume("cpu", async (job) => void handled.add(job.sample.id), { concurrency: 8 });
    await enqueued;
    await waitFor(async () => handled.size === 40, 10_000, "all 40 jobs");
  });

  it("stop() lets in-flight jobs finish before it resolves", async () => {
    const t = await transport();
    let started = 0;
    let finished = 0;
    const consumer = t.consume(
      "cpu",
      async () => {
        started += 1;
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished += 1;
      },
      { concurrency: 3 },
    );
    await t.enqueue(jobs(3));
    await waitFor(async () => started === 3, 5000, "three jobs in flight");
    await consumer.stop();
    expect(finished).toBe(3);
  });

  it("runs a completed job again only when its result is still missing just before", async () => {
    // `assay retry` finds results missing, then requeues their jobs; a failed job it retried
    // a moment earlier may complete in between, and must not run a second time.
    const t = await transport();
    const done: string[] = [];
    const consumer = t.consume("cpu", async (job) => void done.push(job.sample.id), {
      concurrency: 2,
    });
    await t.enqueue(jobs(2));
    await waitFor(async () => done.length === 2, 10_000, "both jobs to complete");
    await consumer.stop();
    const asked: string[][] = [];
    const raced = await requeueJobs(t, jobs(2), {
      stillMissing: async (completed) => {
        asked.push(completed.map((job) => job.sample.id));
        return completed.filter((job) => job.sample.id === "s1");
      },
    });
    expect(asked).toEqual([["s0", "s1"]]);
    expect(raced).toEqual({ enqueued: 1, pending: 1 });
    expect(await waitingIn(t, "cpu")).toBe(1);
  });
});
