/**
 * `npm run bench:formats`: the same generated samples as plain JSONL, gzip JSONL, CSV and
 * Parquet, each through `assay run` on the embedded store, in the same run. Prints the
 * median samples/s of each, its ratio to plain JSONL (target ≥ 0.8) and its peak RSS.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type Row, toCsv, toJsonl, toParquet } from "@assay/test-support/dataset-renderings";
import { mcqSample, requireBuiltCli, timeAssayRun, writeKindSpec } from "./assay-cli.js";
import { fmt, median } from "./bench-util.js";

const { values: flags } = parseArgs({
  options: {
    samples: { type: "string", default: "100000" },
    reps: { type: "string", default: "3" },
  },
});
const samples = Number(flags.samples);
const reps = Number(flags.reps);
requireBuiltCli();

const work = mkdtempSync(join(tmpdir(), "assay-bench-formats-"));
const spec = join(work, "bench.spec.yaml");
writeKindSpec(spec, "bench-formats", ["mcq", "short", "long"]);

const rows = Array.from({ length: samples }, (_, i) => row(i));
const datasets: [string, string, string | Uint8Array][] = [
  ["jsonl", "bench.jsonl", toJsonl(rows)],
  ["jsonl.gz", "bench.jsonl.gz", gzipSync(toJsonl(rows))],
  ["csv", "bench.csv", toCsv(rows)],
  ["parquet", "bench.parquet", toParquet(rows, { rowGroupSize: 10_000 })],
];
rows.length = 0;

interface Result {
  format: string;
  rate: number;
  peakRss: number;
}

const results: Result[] = [];
try {
  const rates = new Map<string, number[]>();
  const rss = new Map<string, number[]>();
  // Formats take turns within each repetition, so a slower moment of a shared machine
  // falls on all of them rather than on one.
  for (let rep = 0; rep < reps; rep += 1) {
    for (const [format, name, bytes] of datasets) {
      const path = join(work, name);
      writeFileSync(path, bytes);
      const store = join(work, `store-${format}-${rep}`);
      const { run, summary } = await timeAssayRun(path, [
        "--spec",
        spec,
        "--db",
        store,
        "--run-id",
        `bench-${rep}`,
      ]);
      if (summary.samples !== samples) {
        throw new Error(`${format}: expected ${samples} samples, got ${summary.samples}`);
      }
      rmSync(store, { recursive: true, force: true });
      const rate = samples / (run.wallMs / 1000);
      rates.set(format, [...(rates.get(format) ?? []), rate]);
      rss.set(format, [...(rss.get(format) ?? []), run.peakRssMb]);
      console.log(
        `rep ${rep + 1} ${format.padEnd(8)} ${fmt(run.wallMs)} ms, peak RSS ${fmt(run.peakRssMb)} MB`,
      );
    }
  }
  for (const [format] of datasets) {
    results.push({
      format,
      rate: median(rates.get(format) ?? []),
      peakRss: Math.max(...(rss.get(format) ?? [])),
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const baseline = results.find((result) => result.format === "jsonl")?.rate ?? Number.NaN;
console.log(
  `\nbench:formats — ${fmt(samples)} samples through assay run (embedded store), median of ${reps} runs`,
);
console.log("format    samples/s   ÷ plain JSONL (target ≥ 0.8)   peak RSS MB");
for (const result of results) {
  console.log(
    `${result.format.padEnd(8)} ${fmt(result.rate).padStart(10)} ${fmt(result.rate / baseline, 2).padStart(29)} ${fmt(result.peakRss).padStart(13)}`,
  );
}

function row(i: number): Row {
  const kind = ["mcq", "short", "long"][i % 3] as string;
  const id = `s${i}`;
  if (kind === "mcq") return mcqSample(i);
  if (kind === "short") {
    return {
      id,
      question: `Capital, item ${i}?`,
      answer: "Paris",
      target: "Paris",
      metadata: { kind },
    };
  }
  return {
    id,
    question: `Summarise "passage" ${i}, in one line.`,
    answer: `The passage ${i} says the cat sat on the mat, then left.`,
    target: "the cat sat on the mat",
    metadata: { kind },
  };
}
