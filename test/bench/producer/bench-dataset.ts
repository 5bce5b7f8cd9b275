import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { parseDatasetLine, type ScoreJob, samplesFromLine } from "@assay/core";
import { createRouter, parseSpec, planSample } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";

/** The run spec of the benchmark: one deterministic scorer for every sample. */
export const BENCH_SPEC =
  "name: bench-producer\nrules: []\ndefault:\n  scorers: [{ name: exact }]\n";

/** Line `index` (0-based) of the benchmark dataset: a small, valid sample. */
export function benchLine(index: number): string {
  return JSON.stringify({
    id: `s${index}`,
    question: `What is ${index} + 1?`,
    answer: `${index + 1}`,
    target: `${index + 1}`,
  });
}

/** Writes `count` benchmark lines to `file`, streaming, so any size fits in memory. */
export async function writeBenchDataset(file: string, count: number): Promise<void> {
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  for (let i = 0; i < count; i += 1) {
    if (!out.write(`${benchLine(i)}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/**
 * The jobs the producer plans for lines `from`..`to` of the dataset, built with the same
 * functions it uses, so the raw baseline enqueues exactly the same payloads.
 */
export function benchJobs(runId: string, file: string, from: number, to: number): ScoreJob[] {
  const jobs: ScoreJob[] = [];
  for (let i = from; i < to; i += 1) {
    const parsed = parseDatasetLine(benchLine(i));
    if (!parsed.ok) throw new Error(`benchmark line ${i + 1} is invalid: ${parsed.message}`);
    for (const sample of samplesFromLine(parsed.line, i + 1)) {
      const target = route(sample);
      if (target === undefined) throw new Error("the benchmark spec routes every sample");
      jobs.push(...planSample(runId, sample, target, registry, file));
    }
  }
  return jobs;
}

const registry = defaultRegistry();
const route = createRouter(parseSpec(BENCH_SPEC, "bench.yaml", registry));
