/**
 * The baseline producer of `bench:night`, as its own process: the jobs `assay produce`
 * plans for the benchmark dataset (same ids, payloads and job options), added with plain
 * `Queue.addBulk` calls of 500. It holds back the same way the transport does (no more
 * than `high-water-mark` jobs waiting, looked up once per quarter of it), so both sides
 * keep the same number of jobs in Redis and Redis memory compares like for like.
 *
 *   raw-producer.ts <redis-url> <prefix> <run-id> <dataset> <samples> <high-water-mark>
 */

import { jobOptionsOf, resolveOptions } from "@assay/queue";
import { Queue } from "bullmq";
import { benchJobs } from "../producer/bench-dataset.js";

const [redisUrl = "", prefix = "", runId = "", dataset = "", samples = "0", mark = "20000"] =
  process.argv.slice(2);
const total = Number(samples);
const highWaterMark = Number(mark);
const CHUNK = 500;
const jobOptions = resolveOptions({ redisUrl, prefix });
const queue = new Queue("cpu", {
  connection: { url: redisUrl, maxRetriesPerRequest: null },
  prefix,
  streams: { events: { maxLen: 1000 } },
});
let room = 0;
for (let from = 0; from < total; from += CHUNK) {
  const jobs = benchJobs(runId, dataset, from, Math.min(total, from + CHUNK));
  while (room <= 0) {
    room = Math.min(highWaterMark - (await queue.count()), Math.ceil(highWaterMark / 4));
    if (room <= 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await queue.addBulk(
    jobs.map((job) => ({ name: "score", data: job, opts: jobOptionsOf(job, jobOptions) })),
  );
  room -= jobs.length;
}
await queue.close();
