/**
 * The baseline of the producer benchmark, as its own process: the jobs the producer would
 * enqueue for the dataset, with the same ids, payloads and options, added with plain
 * `Queue.addBulk` calls awaited one after another. Jobs are built between calls and only
 * the calls are measured, so this is what BullMQ and Redis alone cost. Prints
 * `{"ms": wall, "cpuMs": this process's CPU}` spent in `addBulk`.
 *
 *   raw-add-bulk.ts <redis-url> <prefix> <run-id> <dataset> <lines> <jobs-per-call>
 */

import { jobOptionsOf, queueNameOf, resolveOptions } from "@assay/queue";
import { Queue } from "bullmq";
import { benchJobs } from "./bench-dataset.js";

const [redisUrl = "", prefix = "", runId = "", dataset = "", lines = "0", chunk = "500"] =
  process.argv.slice(2);
const chunkSize = Number(chunk);
const jobOptions = resolveOptions({ redisUrl, prefix });
const queue = new Queue("cpu", {
  connection: { url: redisUrl, maxRetriesPerRequest: null },
  prefix,
  streams: { events: { maxLen: 1000 } },
});
let ms = 0;
let cpuUs = 0;
for (let from = 0; from < Number(lines); from += chunkSize) {
  const jobs = benchJobs(runId, dataset, from, Math.min(Number(lines), from + chunkSize));
  if (jobs.some((job) => queueNameOf(job) !== "cpu")) throw new Error("expected cpu jobs only");
  const bulk = jobs.map((job) => ({
    name: "score",
    data: job,
    opts: jobOptionsOf(job, jobOptions),
  }));
  const start = performance.now();
  const cpu = process.cpuUsage();
  await queue.addBulk(bulk);
  const used = process.cpuUsage(cpu);
  ms += performance.now() - start;
  cpuUs += used.user + used.system;
}
await queue.close();
console.log(JSON.stringify({ ms, cpuMs: cpuUs / 1000 }));
