import { RunSpecSchema, type ScoreJob, SpecError } from "@assay/core";
import { BullmqTransport, queueNameFor } from "@assay/queue";
import { defineScorer, ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { sample } from "@assay/test-support/samples";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { Queue } from "bullmq";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createScoreHandler, parseSpec } from "../src/index.js";
import { JobTimeoutError } from "../src/run/job-time-limit.js";
import { linePlanner } from "../src/run/plan-chunk.js";

/** A model scorer that never answers: only its signal ends its wait. */
function stallingScorer(aborted: { count: number }) {
  return defineScorer({
    name: "stall",
    pool: "gpu",
    description: "never answers (a hung model call)",
    args: z.object({ model: z.string() }),
    create: () => (_sample, context) =>
      new Promise(() => {
        context.signal?.addEventListener("abort", () => {
          aborted.count += 1;
        });
      }),
  });
}

const MODEL = "hung-model";

function stalledJob(runId: string, id: string, timeoutMs?: number): ScoreJob {
  return {
    runId,
    pool: "gpu",
    rule: "default",
    scorer: { name: "stall", args: { model: MODEL } },
    sample: sample(id, { line: 1 }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

async function scoreRow(store: Store, runId: string) {
  return (await queryRows(store, "SELECT status, reason, detail FROM scores WHERE run_id = $1", [
    runId,
  ])) as { status: string; reason: string; detail: unknown }[];
}

describe("a job's time limit", () => {
  let test: TestStore;
  const aborted = { count: 0 };
  const registry = new ScorerRegistry([stallingScorer(aborted) as never]);

  beforeAll(async () => {
    test = await openTestStore("postgres");
  });
  afterAll(async () => {
    await test?.dispose();
  });

  it("fails a try that may be retried, stores nothing, and aborts the scorer's signal", async () => {
    const { store } = test;
    await store.startRun({ id: "retried", spec: {}, transport: "bullmq" });
    const writer = store.createResultWriter({ maxDelayMs: 1 });
    const handler = createScoreHandler({ registry, writer, store, jobTimeoutMs: 50 });
    const before = aborted.count;
    await expect(
      handler(stalledJob("retried", "s1"), new AbortController().signal, { final: false }),
    ).rejects.toThrow(JobTimeoutError);
    await writer.close();
    expect(aborted.count).toBe(before + 1);
    expect(await scoreRow(store, "retried")).toEqual([]);
  });

  it("stores the last try's result unscored (timeout), in-process too, by the job's own limit first", async () => {
    const { store } = test;
    await store.startRun({ id: "last", spec: {}, transport: "local" });
    const writer = store.createResultWriter({ maxDelayMs: 1 });
    // The worker's limit (an hour) gives way to the one the spec planned into the job.
    const handler = createScoreHandler({ registry, writer, store, jobTimeoutMs: 3_600_000 });
    // An in-process transport never retries: no attempt means the last one.
    await handler(stalledJob("last", "s1", 50), new AbortController().signal);
    await writer.close();
    expect(await scoreRow(store, "last")).toEqual([
      {
        status: "unscored",
        reason: "timeout",
        detail: {
          message:
            "stall gave no score within the job time limit (0.05 s: the spec's job_timeout_s, else --job-timeout)",
        },
      },
    ]);
  });

  it("through BullMQ: each try past it fails with the reason and is retried, the last stores the result", async () => {
    const { store } = test;
    await store.startRun({ id: "queued", spec: {}, transport: "bullmq" });
    const prefix = freshPrefix();
    const transport = await BullmqTransport.connect({
      redisUrl: REDIS_URL,
      prefix,
      attempts: 2,
      backoffMs: 10,
    });
    const writer = store.createResultWriter({ maxDelayMs: 1 });
    try {
      const handler = createScoreHandler({ registry, writer, store, jobTimeoutMs: 100 });
      await transport.enqueue([stalledJob("queued", "s1")]);
      const consumer = transport.consume("gpu", handler, { concurrency: 1, model: MODEL });
      await waitFor(
        async () => (await scoreRow(store, "queued")).length === 1,
        10_000,
        "the last try's result",
      );
      await consumer.stop();
      expect((await scoreRow(store, "queued"))[0]).toMatchObject({
        status: "unscored",
        reason: "timeout",
      });
      // The first try failed with the reason (BullMQ keeps each failed try's trace).
      const queue = new Queue(queueNameFor("gpu", MODEL), {
        connection: transport.redis,
        prefix,
      });
      try {
        const [job] = await queue.getCompleted();
        // Two tries, the first failed: BullMQ counts both, and keeps the failure's trace.
        expect(job?.attemptsMade).toBe(2);
        expect(job?.stacktrace).toHaveLength(1);
        expect(job?.stacktrace?.join("\n")).toMatch(
          /JobTimeoutError: stall gave no score within the job time limit \(0\.1 s: .*\); the job is retried/,
        );
      } finally {
        await queue.close();
      }
    } finally {
      await writer.close();
      await transport.close();
      await deletePrefix(prefix);
    }
  });
});

describe("the spec's job_timeout_s", () => {
  const registry = new ScorerRegistry();

  it("travels in every job planned, in ms; without it no job carries a limit", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 86_400 }), { nil: undefined }),
        fc.integer({ min: 1, max: 5 }),
        (seconds, candidates) => {
          const spec = RunSpecSchema.parse({
            default: { scorers: [{ name: "exact" }, { name: "f1" }] },
            ...(seconds !== undefined && { job_timeout_s: seconds }),
          });
          const plan = linePlanner({
            runId: "r",
            spec,
            registry,
            dataset: "d.jsonl",
            generatorUsage: undefined,
          });
          const samples = Array.from({ length: candidates }, (_, i) =>
            sample(`t#${i}`, { line: 1, target: "x" }),
          );
          const jobs = plan(samples);
          expect(jobs).toHaveLength(2 * candidates);
          for (const job of jobs) {
            expect(job.timeoutMs).toBe(seconds === undefined ? undefined : seconds * 1000);
          }
        },
      ),
    );
  });

  it("must be a positive number of seconds, said with the field's name", () => {
    expect(() => parseSpec('{"job_timeout_s": 0}', "night.json", registry)).toThrow(SpecError);
    expect(() => parseSpec('{"job_timeout_s": 0}', "night.json", registry)).toThrow(
      /night\.json.*job_timeout_s/,
    );
  });
});
