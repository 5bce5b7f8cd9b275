/**
 * Producer benchmark (part of `npm run bench:queue`): `assay produce` as its own process
 * (the built entry point, as deployed) against plain BullMQ `addBulk` of the same jobs,
 * also its own process, in the same run, into a Redis of the benchmark's own and a fresh
 * Postgres schema. The queue is emptied as it fills, standing in for very fast workers,
 * so what is measured is the producer itself. Rounds alternate; figures are medians.
 * Besides lines/s it prints CPU per line (the producer's start-up subtracted): on a
 * machine shared with other work, CPU moves much less than wall time.
 *
 *   --lines N        dataset size of the timed rounds (default 300,000)
 *   --rounds N       rounds of baseline + producer (default 3)
 *   --rss-lines A,B  memory mode instead: one producer run per size, printing peak RSS,
 *                    to show it stays flat however long the dataset
 *                    (e.g. --rss-lines 1000000,3000000,10000000)
 *   --cpu-prof DIR   write the producer's CPU profiles to DIR
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openStore } from "@assay/store";
import { startRedis } from "@assay/test-support/redis-server";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import { Queue } from "bullmq";
import { fmt, median } from "./bench-util.js";
import { BENCH_SPEC, writeBenchDataset } from "./producer/bench-dataset.js";
import { type ProducerRun, runProducer } from "./producer/producer-process.js";
import { runRawAddBulk } from "./producer/raw-process.js";
import { flushRedis, redisCpuMs } from "./producer/redis-cpu.js";

const { values: flags } = parseArgs({
  options: {
    lines: { type: "string", default: "300000" },
    rounds: { type: "string", default: "3" },
    "rss-lines": { type: "string" },
    "cpu-prof": { type: "string" },
  },
});
const PREFIX = "bench";
/** Jobs per `addBulk` call of the baseline: the transport's default. */
const RAW_JOBS_PER_CALL = 500;

const dir = mkdtempSync(join(tmpdir(), "assay-bench-producer-"));
const dataset = join(dir, "data.jsonl");
const spec = join(dir, "spec.yaml");
writeFileSync(spec, BENCH_SPEC);
const redis = await startRedis(["--maxmemory-policy", "noeviction"]);
const schema = freshSchema();
await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
const drainer = new Queue("cpu", {
  connection: { url: redis.url, maxRetriesPerRequest: null },
  prefix: PREFIX,
});
const draining = setInterval(() => void drainer.drain().catch(() => {}), 100);
const producerOptions = {
  dataset,
  spec,
  databaseUrl: DATABASE_URL,
  schema,
  redisUrl: redis.url,
  prefix: PREFIX,
  ...(flags["cpu-prof"] !== undefined && { cpuProfDir: flags["cpu-prof"] }),
};
let runs = 0;
/** A run id not used before in this benchmark, so every producer run is a new run. */
const nextRunId = (kind: string): string => {
  runs += 1;
  return `${kind}-${runs}`;
};
try {
  if (flags["rss-lines"] !== undefined) await memoryMode(flags["rss-lines"].split(",").map(Number));
  else await timedRounds(Number(flags.lines), Number(flags.rounds));
} finally {
  clearInterval(draining);
  await drainer.close();
  await redis.remove();
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
}

interface Measured {
  linesPerSecond: number;
  /** Client (producer or baseline) CPU per line, µs. */
  cpuUs: number;
  /** Redis server CPU per line, µs. */
  redisUs: number;
}

async function timedRounds(lines: number, rounds: number): Promise<void> {
  const startUpCpuMs = await producerStartUpCpu();
  await writeBenchDataset(dataset, lines);
  const raw: Measured[] = [];
  const producer: Measured[] = [];
  let peakRssMb = 0;
  for (let round = 1; round <= rounds; round += 1) {
    raw.push(await measureRaw(lines));
    const { run, measured } = await measureProducer(lines, startUpCpuMs);
    producer.push(measured);
    peakRssMb = Math.max(peakRssMb, run.peakRssMb);
    console.log(
      `  round ${round}: raw addBulk ${describe(raw.at(-1))}; producer ${describe(measured)}, peak RSS ${fmt(run.peakRssMb)} MB`,
    );
  }
  const rawRate = median(raw.map((m) => m.linesPerSecond));
  const producerRate = median(producer.map((m) => m.linesPerSecond));
  const cpu = (list: Measured[]) => median(list.map((m) => m.cpuUs + m.redisUs));
  console.log(
    `bench:producer — ${fmt(lines)} lines, medians of ${rounds} rounds (a noisy shared machine: read the ratios): ` +
      `producer ${fmt(producerRate)} lines/s, raw BullMQ addBulk of the same jobs ${fmt(rawRate)} lines/s, ` +
      `ratio ${fmt(producerRate / rawRate, 2)}× (target ≥ 0.80×); ` +
      `CPU per line (client + Redis) producer ${fmt(cpu(producer), 1)} µs vs raw ${fmt(cpu(raw), 1)} µs; ` +
      `producer peak RSS ${fmt(peakRssMb)} MB (target ≤ 300 MB)`,
  );
}

async function memoryMode(sizes: number[]): Promise<void> {
  for (const lines of sizes) {
    await writeBenchDataset(dataset, lines);
    const { run, measured } = await measureProducer(lines, 0);
    rmSync(dataset, { force: true });
    console.log(
      `bench:producer memory — ${fmt(lines)} lines: ${fmt(measured.linesPerSecond)} lines/s, ` +
        `peak RSS ${fmt(run.peakRssMb)} MB (target ≤ 300 MB at 10,000,000 lines)`,
    );
  }
}

async function measureRaw(lines: number): Promise<Measured> {
  await flushRedis(redis.url);
  const redisBefore = await redisCpuMs(redis.url);
  const run = await runRawAddBulk({
    redisUrl: redis.url,
    prefix: PREFIX,
    runId: nextRunId("raw"),
    dataset,
    lines,
    jobsPerCall: RAW_JOBS_PER_CALL,
  });
  return {
    linesPerSecond: (lines * 1000) / run.ms,
    cpuUs: (run.cpuMs * 1000) / lines,
    redisUs: (((await redisCpuMs(redis.url)) - redisBefore) * 1000) / lines,
  };
}

async function measureProducer(
  lines: number,
  startUpCpuMs: number,
): Promise<{ run: ProducerRun; measured: Measured }> {
  await flushRedis(redis.url);
  const redisBefore = await redisCpuMs(redis.url);
  const run = await runProducer({ ...producerOptions, runId: nextRunId("bench") });
  const measured = {
    linesPerSecond: (lines * 1000) / run.produceMs,
    cpuUs: ((run.cpuMs - startUpCpuMs) * 1000) / lines,
    redisUs: (((await redisCpuMs(redis.url)) - redisBefore) * 1000) / lines,
  };
  return { run, measured };
}

/** The producer's CPU time on a one-line dataset: loading, connecting, registering the run. */
async function producerStartUpCpu(): Promise<number> {
  await writeBenchDataset(dataset, 1);
  const samples: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    samples.push((await runProducer({ ...producerOptions, runId: nextRunId("start") })).cpuMs);
  }
  return median(samples);
}

function describe(measured: Measured | undefined): string {
  if (measured === undefined) return "";
  return `${fmt(measured.linesPerSecond)} lines/s, CPU ${fmt(measured.cpuUs, 1)} + Redis ${fmt(measured.redisUs, 1)} µs/line`;
}
