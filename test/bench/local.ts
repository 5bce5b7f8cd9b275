/**
 * `npm run bench:local`: 1,000,000 generated samples (`--samples`) through `assay run` on the
 * embedded store and on Postgres. Each run starts in a fresh folder (embedded) or database
 * (Postgres), as a first run does. On Postgres the yardstick, in the same run, is a plain
 * COPY of exactly the rows the run stored (its samples and scores), into the same tables
 * with the same indexes, plus the rollups it writes (same-run-baseline.ts). Also printed:
 * the CPU the `assay run` process spent per sample (user + system, every thread, from GNU
 * time, start-up included) and the share of it in garbage-collection pauses.
 * Targets: on Postgres, `assay run` ≥ 0.5 × the same-run COPY rate and ≤ 15 µs CPU per
 * sample; the embedded store ≥ 0.5 × the Postgres `assay run` rate, at ≤ 300 MB peak RSS.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DATABASE_URL } from "@assay/test-support/database-url";
import {
  freshPostgres,
  GC_PAUSES,
  mcqSample,
  requireBuiltCli,
  timeAssayRun,
  writeKindSpec,
} from "./assay-cli.js";
import { fmt, median } from "./bench-util.js";
import { captureRun, replayRun } from "./same-run-baseline.js";

const { values: flags } = parseArgs({
  options: {
    samples: { type: "string", default: "1000000" },
    reps: { type: "string", default: "3" },
    /** Comma-separated: which stores to measure. */
    stores: { type: "string", default: "pglite,postgres" },
    postgres: {
      type: "string",
      default: DATABASE_URL,
    },
  },
});
const samples = Number(flags.samples);
const reps = Number(flags.reps);
requireBuiltCli();

const work = mkdtempSync(join(tmpdir(), "assay-bench-local-"));
const dataset = join(work, "bench.jsonl");
const spec = join(work, "bench.spec.yaml");
writeDataset(dataset, samples);
writeKindSpec(spec, "bench-local", ["mcq", "num", "short", "long"]);

interface Row {
  store: string;
  e2eRate: number;
  /** Samples/s of the same-run COPY baseline; NaN where there is none (embedded). */
  baselineRate: number;
  /** Median of each repetition's `assay run` ÷ baseline. */
  ratio: number;
  cpuUsPerSample: number;
  gcShare: number;
  peakRss: number;
}

const stores = new Set(flags.stores.split(","));
const results: Row[] = [];
try {
  if (stores.has("pglite")) {
    results.push(
      await benchStore("pglite", async (rep) => ({
        dbArgs: ["--db", join(work, `pglite-${rep}`)],
        baseline: undefined,
      })),
    );
  }
  if (stores.has("postgres")) {
    results.push(
      await benchStore("postgres", async () => {
        const url = await freshPostgres(flags.postgres, "assay_bench_local");
        return { dbArgs: ["--db", url], baseline: (runId) => sameRunRate(url, runId) };
      }),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(
  `\nbench:local — ${fmt(samples)} samples, 1 deterministic score each, median of ${reps} runs`,
);
console.log(
  "store     assay run samples/s   same-run COPY samples/s   ratio (target ≥ 0.5)   CPU µs/sample (target ≤ 15)   GC % of CPU   peak RSS MB (embedded: target ≤ 300)",
);
for (const row of results) {
  const baseline = Number.isNaN(row.baselineRate) ? "—" : fmt(row.baselineRate);
  const ratio = Number.isNaN(row.ratio) ? "—" : fmt(row.ratio, 2);
  console.log(
    `${row.store.padEnd(9)} ${fmt(row.e2eRate).padStart(19)} ${baseline.padStart(25)} ${ratio.padStart(22)} ${fmt(row.cpuUsPerSample, 1).padStart(29)} ${fmt(row.gcShare * 100, 1).padStart(13)} ${fmt(row.peakRss).padStart(38)}`,
  );
}
const embedded = results.find((row) => row.store === "pglite");
const server = results.find((row) => row.store === "postgres");
if (embedded !== undefined && server !== undefined) {
  console.log(
    `embedded ÷ Postgres assay run rate: ${fmt(embedded.e2eRate / server.e2eRate, 2)} (target ≥ 0.5)`,
  );
}

/**
 * Where one repetition runs: a new folder or database, as a first run has, and the rate of
 * its same-run baseline, measured after the run (none for the embedded store).
 */
type FreshStore = (rep: number) => Promise<{
  dbArgs: string[];
  baseline: ((runId: string) => Promise<number>) | undefined;
}>;

async function benchStore(name: string, fresh: FreshStore): Promise<Row> {
  const e2eRates: number[] = [];
  const baselineRates: number[] = [];
  const ratios: number[] = [];
  const cpuPerSample: number[] = [];
  const gcShares: number[] = [];
  const rss: number[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const { dbArgs, baseline } = await fresh(rep);
    const runId = `e2e-${rep}`;
    const { run, summary } = await timeAssayRun(
      dataset,
      ["--spec", spec, "--run-id", runId, ...dbArgs],
      GC_PAUSES,
    );
    if (summary.results !== samples)
      throw new Error(`expected ${samples} results, got ${summary.results}`);
    const e2eRate = samples / (run.wallMs / 1000);
    e2eRates.push(e2eRate);
    rss.push(run.peakRssMb);
    cpuPerSample.push((run.cpuMs * 1000) / samples);
    gcShares.push(run.gcMs / run.cpuMs);
    let line = `${name} rep ${rep + 1}: assay run ${fmt(run.wallMs)} ms, CPU ${fmt(run.cpuMs)} ms (GC ${fmt(run.gcMs)}), peak RSS ${fmt(run.peakRssMb)} MB`;
    if (baseline !== undefined) {
      const baselineRate = await baseline(runId);
      baselineRates.push(baselineRate);
      ratios.push(e2eRate / baselineRate);
      line += `, same-run COPY ${fmt(baselineRate)} samples/s (ratio ${fmt(e2eRate / baselineRate, 2)})`;
    }
    console.log(line);
  }
  return {
    store: name,
    e2eRate: median(e2eRates),
    baselineRate: baselineRates.length === 0 ? Number.NaN : median(baselineRates),
    ratio: ratios.length === 0 ? Number.NaN : median(ratios),
    cpuUsPerSample: median(cpuPerSample),
    gcShare: median(gcShares),
    peakRss: Math.max(...rss),
  };
}

/** Samples/s of loading exactly what run `runId` stored at `url` (same-run-baseline.ts). */
async function sameRunRate(url: string, runId: string): Promise<number> {
  const dir = mkdtempSync(join(work, "captured-"));
  try {
    const captured = await captureRun(url, runId, dir);
    const ms = await replayRun(url, "assay_bench_same_run", captured);
    return samples / (ms / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeDataset(path: string, count: number): void {
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = ["mcq", "num", "short", "long"][i % 4] as string;
    lines.push(JSON.stringify(sampleLine(i, kind)));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

function sampleLine(i: number, kind: string): Record<string, unknown> {
  const id = `s${i}`;
  switch (kind) {
    case "mcq":
      return mcqSample(i);
    case "num":
      return {
        id,
        question: `What is ${i} + ${i}?`,
        answer: `The total is ${(2 * i).toLocaleString("en-US")} units.`,
        target: 2 * i,
        metadata: { kind },
      };
    case "short":
      return {
        id,
        question: `Who wrote book ${i}?`,
        answer: i % 3 === 0 ? "The Author" : "author",
        target: ["author", "an author"],
        metadata: { kind },
      };
    default:
      return {
        id,
        question: `Summarize passage ${i}.`,
        answer: "The quick brown fox jumps over the lazy dog near the river bank at dawn.",
        target: ["a quick fox jumped over a lazy dog by the river"],
        metadata: { kind },
      };
  }
}
