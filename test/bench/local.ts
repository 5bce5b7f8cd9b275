/**
 * `npm run bench:local`: 100,000 generated samples through `assay run` on the embedded
 * store and on Postgres, against a raw COPY of the same number of score rows into the same
 * store, in the same run. Each run starts in a fresh folder (embedded) or database
 * (Postgres), as a first run does. Targets: on Postgres, `assay run` ≥ 0.3 × the raw COPY
 * rate; the embedded store ≥ 0.5 × the Postgres `assay run` rate, at ≤ 300 MB peak RSS.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ScoreRow } from "@assay/core";
import { type OpenStoreOptions, openStore } from "@assay/store";
import { DATABASE_URL } from "@assay/test-support/database-url";
import {
  freshPostgres,
  mcqSample,
  requireBuiltCli,
  timeAssayRun,
  writeKindSpec,
} from "./assay-cli.js";
import { fmt, median, timed } from "./bench-util.js";
import { rawBulkInsertScores } from "./raw-copy-baseline.js";

const { values: flags } = parseArgs({
  options: {
    samples: { type: "string", default: "100000" },
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
  rawRate: number;
  peakRss: number;
}

const stores = new Set(flags.stores.split(","));
const results: Row[] = [];
try {
  if (stores.has("pglite")) {
    results.push(
      await benchStore("pglite", async (rep) => {
        const dir = join(work, `pglite-${rep}`);
        return { target: { dataDir: dir }, dbArgs: ["--db", dir] };
      }),
    );
  }
  if (stores.has("postgres")) {
    results.push(
      await benchStore("postgres", async () => {
        const url = await freshPostgres(flags.postgres, "assay_bench_local");
        return { target: { databaseUrl: url }, dbArgs: ["--db", url] };
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
  "store     assay run samples/s   raw COPY rows/s   ratio (Postgres: target ≥ 0.3)   peak RSS MB (embedded: target ≤ 300)",
);
for (const row of results) {
  console.log(
    `${row.store.padEnd(9)} ${fmt(row.e2eRate).padStart(19)} ${fmt(row.rawRate).padStart(17)} ${fmt(row.e2eRate / row.rawRate, 2).padStart(32)} ${fmt(row.peakRss).padStart(38)}`,
  );
}
const embedded = results.find((row) => row.store === "pglite");
const server = results.find((row) => row.store === "postgres");
if (embedded !== undefined && server !== undefined) {
  console.log(
    `embedded ÷ Postgres assay run rate: ${fmt(embedded.e2eRate / server.e2eRate, 2)} (target ≥ 0.5)`,
  );
}

/** Where one repetition runs: a new folder or database, as a first run has. */
type FreshStore = (rep: number) => Promise<{ target: OpenStoreOptions; dbArgs: string[] }>;

async function benchStore(name: string, fresh: FreshStore): Promise<Row> {
  const e2eRates: number[] = [];
  const rss: number[] = [];
  const rawRates: number[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const { target, dbArgs } = await fresh(rep);
    const { run, summary } = await timeAssayRun(dataset, [
      "--spec",
      spec,
      "--run-id",
      `e2e-${rep}`,
      ...dbArgs,
    ]);
    if (summary.results !== samples)
      throw new Error(`expected ${samples} results, got ${summary.results}`);
    e2eRates.push(samples / (run.wallMs / 1000));
    rss.push(run.peakRssMb);
    rawRates.push(await rawInsertRate(target, `raw-${rep}`));
    console.log(
      `${name} rep ${rep + 1}: assay run ${fmt(run.wallMs)} ms, peak RSS ${fmt(run.peakRssMb)} MB, raw ${fmt(rawRates.at(-1) ?? 0)} rows/s`,
    );
  }
  return {
    store: name,
    e2eRate: median(e2eRates),
    rawRate: median(rawRates),
    peakRss: Math.max(...rss),
  };
}

async function rawInsertRate(target: OpenStoreOptions, runId: string): Promise<number> {
  const store = await openStore(target);
  try {
    const rows: ScoreRow[] = Array.from({ length: samples }, (_, i) => ({
      runId,
      sampleId: `s${i}`,
      scorer: "exact",
      criterion: "",
      repetition: 0,
      rule: "short",
      status: "scored",
      value: i % 2,
      reason: null,
      detail: null,
    }));
    const { ms } = await timed(() => rawBulkInsertScores(store, rows));
    return samples / (ms / 1000);
  } finally {
    await store.close();
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
