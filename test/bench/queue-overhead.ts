/**
 * `npm run bench:queue`: the cost of Assay's distributed path over bare BullMQ. The same
 * jobs go through (a) Assay: BullmqTransport.enqueue, then `runWorker` (job options,
 * metrics, the shared score handler, a no-op scorer, the batched writer with a no-op
 * store), and (b) a raw BullMQ Worker with a no-op processor, at the same concurrency, on
 * the same Redis, in the same run. Target: Assay ≥ 0.7 × raw jobs/s.
 */
import { parseArgs } from "node:util";
import { type ScoreJob, scored } from "@assay/core";
import { createLogger } from "@assay/pipeline";
import { runWorker } from "@assay/pipeline/worker";
import { BullmqTransport } from "@assay/queue";
import { defineScorer, ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { startRedis } from "@assay/test-support/redis-server";
import { Queue, Worker } from "bullmq";
import { z } from "zod";
import { fmt, median } from "./bench-util.js";

const { values: flags } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "100" },
    reps: { type: "string", default: "3" },
  },
});
const jobCount = Number(flags.jobs);
const concurrency = Number(flags.concurrency);
const reps = Number(flags.reps);

const noop = defineScorer({
  name: "noop",
  pool: "cpu",
  description: "scores 1, does nothing (benchmark)",
  args: z.object({}),
  create: () => async () => scored(1),
});
const registry = new ScorerRegistry([noop]);
// Rows go nowhere: this measures the queue path, not Postgres (bench:store does that). The
// stub counts them, so the benchmark knows when every job is through without polling Redis.
let rowsWritten = 0;
let onRow: () => void = () => {};
const nullStore = {
  writeResults: async (rows: readonly unknown[]) => {
    rowsWritten += rows.length;
    onRow();
    return rows.length;
  },
} as unknown as Store;

const redis = await startRedis(["--maxmemory-policy", "noeviction"]);
const jobsOf = (runId: string): ScoreJob[] =>
  Array.from({ length: jobCount }, (_, i) => ({
    runId,
    pool: "cpu",
    rule: "default",
    scorer: { name: "noop", args: {} },
    sample: {
      id: `s${i}`,
      taskId: `s${i}`,
      candidateIndex: 0,
      question: `question ${i}`,
      answer: `answer ${i}`,
      metadata: {},
      line: i + 1,
    },
  }));

async function assayRate(rep: number): Promise<number> {
  const transport = await BullmqTransport.connect({
    redisUrl: redis.url,
    prefix: `assay-${rep}`,
    highWaterMark: jobCount + 1,
  });
  await transport.enqueue(jobsOf(`run-${rep}`));
  const stop = new AbortController();
  rowsWritten = 0;
  const allWritten = new Promise<void>((resolve) => {
    onRow = () => {
      if (rowsWritten >= jobCount) resolve();
    };
  });
  const start = performance.now();
  const worker = runWorker({
    pool: "cpu",
    concurrency,
    store: nullStore,
    transport,
    registry,
    log: createLogger("silent"),
    signal: stop.signal,
  });
  await allWritten;
  const ms = performance.now() - start;
  stop.abort();
  await worker;
  await transport.close();
  return (jobCount * 1000) / ms;
}

async function rawRate(rep: number): Promise<number> {
  const connection = { url: redis.url, maxRetriesPerRequest: null };
  const queue = new Queue("cpu", { connection, prefix: `raw-${rep}` });
  const jobs = jobsOf(`run-${rep}`);
  for (let i = 0; i < jobs.length; i += 500) {
    await queue.addBulk(
      jobs
        .slice(i, i + 500)
        .map((data) => ({ name: "score", data, opts: { removeOnComplete: 1000 } })),
    );
  }
  let done = 0;
  let finished: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const start = performance.now();
  const worker = new Worker("cpu", async () => {}, {
    connection,
    prefix: `raw-${rep}`,
    concurrency,
  });
  worker.on("completed", () => {
    done += 1;
    if (done === jobCount) finished();
  });
  await allDone;
  const ms = performance.now() - start;
  await worker.close();
  await queue.close();
  return (jobCount * 1000) / ms;
}

try {
  const assay: number[] = [];
  const raw: number[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    raw.push(await rawRate(rep));
    assay.push(await assayRate(rep));
    console.log(
      `  rep ${rep + 1}: raw ${fmt(raw[rep] ?? 0)} jobs/s, assay ${fmt(assay[rep] ?? 0)} jobs/s`,
    );
  }
  const ratio = median(assay) / median(raw);
  console.log(
    `bench:queue — ${fmt(jobCount)} no-op jobs, concurrency ${concurrency}, median of ${reps}: ` +
      `raw BullMQ ${fmt(median(raw))} jobs/s, Assay ${fmt(median(assay))} jobs/s, ratio ${ratio.toFixed(2)} (target ≥ 0.70)`,
  );
} finally {
  await redis.remove();
}
