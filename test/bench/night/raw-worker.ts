/**
 * The baseline worker of `bench:night`, as its own process: a plain BullMQ Worker on the
 * same queue, at the same concurrency as `assay worker`, whose processor does the least
 * the real one must: score the sample (answer equals target) and store the same score row
 * through the store's batched writer (same batch size and delay as `runWorker`), resolving
 * once the row is stored, so a job is acknowledged only after its row is durable, as in
 * Assay. No scorer registry, metrics, outage watch or job options beyond BullMQ's.
 * Prints "ready" once it listens; stops (flushing) on SIGTERM.
 *
 *   raw-worker.ts <redis-url> <prefix> <database-url> <schema> <concurrency>
 */

import { resultKeyOfJob, type ScoreJob, scored, scoreRowOf } from "@assay/core";
import { openStore } from "@assay/store";
import { Worker } from "bullmq";

const [redisUrl = "", prefix = "", databaseUrl = "", schema = "", concurrencyArg = "200"] =
  process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const store = await openStore({ databaseUrl, schema });
const writer = store.createResultWriter({ maxBatch: Math.min(1000, concurrency), maxDelayMs: 20 });
const worker = new Worker<ScoreJob>(
  "cpu",
  async (job) => {
    const { sample } = job.data;
    const value = sample.answer === sample.target ? 1 : 0;
    await writer.add({
      score: scoreRowOf(resultKeyOfJob(job.data), job.data.rule, scored(value)),
      truncations: [],
      usage: [],
    });
  },
  {
    connection: { url: redisUrl, maxRetriesPerRequest: null },
    prefix,
    concurrency,
  },
);
await worker.waitUntilReady();
console.log("ready");
process.once("SIGTERM", () => {
  void (async () => {
    await worker.close();
    await writer.close();
    await store.close();
    process.exit(0);
  })();
});
