import { jobIdOf, resultKeyOfJob, type ScoreJob } from "@assay/core";
import { scoreJob } from "@assay/test-support/score-job";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { BullmqTransport, readFailedJobs, requeueJobs } from "../src/index.js";

// A job whose data is not JSON (written by hand, or damaged): BullMQ throws reading it, so a
// worker that took it left it active and every look at the queue (`assay status`) failed.
const open: Array<{ transport: BullmqTransport; prefix: string }> = [];

afterEach(async () => {
  for (const { transport, prefix } of open.splice(0)) {
    await transport.close();
    await deletePrefix(prefix);
  }
});

async function transportWithCorruptJob(): Promise<{
  transport: BullmqTransport;
  jobs: ScoreJob[];
  corruptId: string;
}> {
  const prefix = freshPrefix();
  const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix, backoffMs: 10 });
  open.push({ transport, prefix });
  const jobs = ["a", "b", "c"].map((id) => scoreJob(id, { runId: "night" }));
  await transport.enqueue(jobs);
  const corruptId = jobIdOf(resultKeyOfJob(jobs[1] as ScoreJob));
  const queue = new Queue("cpu", { connection: transport.redis, prefix });
  try {
    await transport.redis.hset(queue.toKey(corruptId), "data", '{"runId":"night", broken');
  } finally {
    await queue.close();
  }
  return { transport, jobs, corruptId };
}

describe("a job whose data is not JSON", () => {
  it("is reported by the queue's health instead of failing the look", async () => {
    const { transport, corruptId } = await transportWithCorruptJob();
    const health = await transport.queueHealth("night", await transport.queueCounts());
    const cpu = health.find((h) => h.queue === "cpu");
    expect(cpu?.corrupt).toEqual([
      {
        jobId: corruptId,
        state: "waiting",
        reason: expect.stringMatching(/^its data is not JSON/),
      },
    ]);
    // The others are still counted as the run's, waiting for a worker.
    expect(cpu?.runJobsWithoutWorker).toBe(2);
  });

  it("is set aside as failed by the worker that takes it, with its id and why; the rest are scored", async () => {
    const { transport, corruptId } = await transportWithCorruptJob();
    const handled: string[] = [];
    transport.consume(
      "cpu",
      async (job) => {
        handled.push(job.sample.id);
      },
      { concurrency: 2 },
    );
    await waitFor(
      async () => {
        const counts = (await transport.queueCounts())[0];
        return counts !== undefined && counts.failed === 1 && counts.active + counts.waiting === 0;
      },
      10_000,
      "the two good jobs done and the corrupt one failed",
    );
    expect(handled.sort()).toEqual(["a", "c"]);
    const { failed, corrupt } = await readFailedJobs(transport, "night");
    // It names no run: it is not counted as the run's failed job, but listed apart.
    expect(failed).toEqual([]);
    expect(corrupt).toEqual([
      { queue: "cpu", jobId: corruptId, reason: expect.stringMatching(/^its data is not JSON/) },
    ]);
    const queue = new Queue("cpu", { connection: transport.redis, prefix: transport.prefix });
    try {
      const reason = await transport.redis.hget(queue.toKey(corruptId), "failedReason");
      expect(reason).toMatch(
        new RegExp(`^corrupt job ${corruptId}: its data is not JSON .*; it cannot be scored$`),
      );
    } finally {
      await queue.close();
    }
  });

  it("is replaced by the job planned again when its result is put back (assay retry)", async () => {
    const { transport, jobs } = await transportWithCorruptJob();
    const replanned = jobs[1] as ScoreJob;
    const requeued = await requeueJobs(transport, [replanned]);
    expect(requeued).toEqual({ enqueued: 1, pending: 0 });
    const seen: ScoreJob[] = [];
    transport.consume(
      "cpu",
      async (job) => {
        seen.push(job);
      },
      { concurrency: 1 },
    );
    await waitFor(async () => seen.length === 3, 10_000, "every job, the replaced one included");
    expect(seen.find((job) => job.sample.id === "b")).toEqual(replanned);
    expect((await transport.queueCounts())[0]?.failed).toBe(0);
  });
});
