/**
 * `npm run bench:night`: a nightly run through the distributed path, end to end, on this
 * machine. `assay produce --wait` (the built producer, as deployed) reads a dataset of N
 * samples into Redis; W `apps/worker-cpu` processes (built, as deployed, default
 * concurrency) score them with the `exact` scorer into Postgres; then `assay report` of
 * the run. Each side gets a redis-server of its own, so Redis's CPU and memory are the
 * run's alone, and a fresh Postgres schema; both are removed afterwards.
 *
 * Baseline, in the same run: a raw BullMQ producer + worker pair (night/raw-producer.ts,
 * night/raw-worker.ts) moving the same jobs (same ids, payloads and job options) through
 * the same kind of Redis with the same worker count and concurrency, and storing the same
 * score rows through the store's batched writer, so Postgres does the same work. It does
 * the least a pipeline must: plain `Queue.addBulk` with the producer's backpressure (else
 * Redis memory would not compare), and a processor that compares answer with target. What
 * the ratio prices is everything else Assay does: the dataset checks, registering the run
 * and its samples in Postgres, the scorer registry, metrics, the outage watch, and the run
 * completion of `--wait`. Target: Assay ≥ 0.80 × the baseline's samples/s.
 *
 * Besides the rate it prints, per size: Redis peak used_memory (sampled, and Redis's own
 * peak) against the bound the producer's backpressure sets; producer and worker peak RSS;
 * rows stored against rows planned; the time from the last result to a finished report;
 * and the per-job costs the Sizing section of docs/performance.md is built from: Redis CPU
 * per job, worker CPU per job, rows/s per worker and rows per second of writer flushing.
 *
 *   --samples N[,N...]  dataset sizes, one run of each (default $ASSAY_BENCH_NIGHT_SAMPLES,
 *                       else 10,000,000); e.g. 1000000,3000000 to see the costs are linear
 *   --workers W         CPU worker processes (default 2)
 *   --concurrency C     jobs in flight per worker (default 200, the worker's default)
 *   --no-baseline       Assay only (e.g. for a 10,000,000 memory check)
 *   --worker-node-flags="F ..."  node flags for the Assay workers, e.g.
 *                       --worker-node-flags="--max-semi-space-size=1" (a young generation
 *                       fixed at its start-up size, as the CLI keeps it; V8 ignores
 *                       --semi-space-growth-factor=1 on the command line) or
 *                       "--heap-growing-percent=100" (V8's old-generation growth) to weigh
 *                       the workers' heap setting (limitHeapGrowth) in CPU per job and RSS
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { resolveOptions } from "@assay/queue";
import { fmt } from "./bench-util.js";
import { cleanupOnInterrupt } from "./interrupt-cleanup.js";
import { type PhaseResult, runPhase } from "./night/phase.js";
import { printSize, printTable } from "./night/report-lines.js";
import { BENCH_SPEC, writeBenchDataset } from "./producer/bench-dataset.js";

const { values: flags } = parseArgs({
  options: {
    samples: {
      type: "string",
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this script, never by a turbo task
      default: process.env.ASSAY_BENCH_NIGHT_SAMPLES ?? "10000000",
    },
    workers: { type: "string", default: "2" },
    concurrency: { type: "string", default: "200" },
    "no-baseline": { type: "boolean", default: false },
    "worker-node-flags": { type: "string", default: "" },
  },
});
const sizes = flags.samples.split(",").map((size) => Number(size.replaceAll("_", "")));
const workers = Number(flags.workers);
const workerNodeFlags = flags["worker-node-flags"].split(" ").filter((flag) => flag !== "");
const concurrency = Number(flags.concurrency);
for (const [name, value] of [
  ...sizes.map((s) => ["--samples", s] as const),
  ["--workers", workers] as const,
  ["--concurrency", concurrency] as const,
]) {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a whole number from 1 up, got ${value}`);
  }
}
const { highWaterMark, addChunkSize, keepCompleted } = resolveOptions({ redisUrl: "" });
/**
 * Jobs Redis can hold at once, from the transport's backpressure: the high-water mark of
 * waiting jobs, plus one chunk less one that a producer may add on its last bit of room,
 * plus the jobs running, plus the finished jobs kept for inspection (none fail here).
 */
const jobBound = highWaterMark + addChunkSize - 1 + workers * concurrency + keepCompleted;

const dir = mkdtempSync(join(tmpdir(), "assay-bench-night-"));
const dataset = join(dir, "data.jsonl");
const spec = join(dir, "spec.yaml");
writeFileSync(spec, BENCH_SPEC);
const removeDir = cleanupOnInterrupt(() => rmSync(dir, { recursive: true, force: true }));
const results: { assay: PhaseResult; raw?: PhaseResult }[] = [];
let runs = 0;
try {
  console.log(
    `bench:night — ${workers} CPU workers × concurrency ${concurrency}` +
      (workerNodeFlags.length > 0 ? ` (worker node flags: ${workerNodeFlags.join(" ")})` : "") +
      "; backpressure bound: " +
      `${fmt(jobBound)} jobs in Redis (high-water mark ${fmt(highWaterMark)} waiting + ${fmt(addChunkSize - 1)} ` +
      `chunk overshoot + ${fmt(workers * concurrency)} running + ${fmt(keepCompleted)} kept completed)`,
  );
  for (const samples of sizes) {
    await writeBenchDataset(dataset, samples);
    const phase = (side: "assay" | "raw") => {
      runs += 1;
      return runPhase({
        side,
        samples,
        workers,
        concurrency,
        dataset,
        spec,
        highWaterMark,
        runId: `night-${side}-${runs}`,
        workerNodeFlags,
      });
    };
    const raw = flags["no-baseline"] ? undefined : await phase("raw");
    const assay = await phase("assay");
    rmSync(dataset, { force: true });
    results.push({ assay, ...(raw !== undefined && { raw }) });
    printSize(assay, raw, workers, jobBound);
  }
  printTable(results, workers, jobBound);
} finally {
  await removeDir();
}
