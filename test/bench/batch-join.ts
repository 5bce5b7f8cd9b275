/**
 * `npm run bench:join`: answers joined from a batch output (`assay run <reference>
 * --answers <output> --answers-format openai-batch`) against the same samples written as
 * plain Assay JSONL with their usage, through `assay run` on the same store, in the same
 * run. Prints the median rows/s and the peak RSS of each, and the ratio. Each run starts in
 * a fresh folder (embedded) or database (Postgres). Default 1,000,000 rows.
 */
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DATABASE_URL } from "@assay/test-support/database-url";
import { freshPostgres, requireBuiltCli, timeAssayRun } from "./assay-cli.js";
import { fmt, median } from "./bench-util.js";

const { values: flags } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    reps: { type: "string", default: "3" },
    /** Comma-separated: which stores to measure. */
    stores: { type: "string", default: "pglite" },
    postgres: { type: "string", default: DATABASE_URL },
  },
});
const rows = Number(flags.rows);
const reps = Number(flags.reps);
requireBuiltCli();

const work = mkdtempSync(join(tmpdir(), "assay-bench-join-"));
const reference = join(work, "reference.jsonl");
const answers = join(work, "answers.jsonl");
const plain = join(work, "plain.jsonl");
const spec = join(work, "spec.yaml");

interface Measured {
  store: string;
  joinRate: number;
  plainRate: number;
  joinRss: number;
  plainRss: number;
}

try {
  await writeFiles();
  await writeLines(spec, [
    "default: { scorers: [{ name: exact }] }",
    "generator_usage: { input_tokens: includes_cached }",
  ]);
  const results: Measured[] = [];
  for (const store of flags.stores.split(",")) results.push(await benchStore(store));
  console.log(`\nbench:join — ${fmt(rows)} rows, 1 exact score each, median of ${reps} runs`);
  console.log(
    "store     joined rows/s   plain JSONL rows/s   ratio   joined peak RSS MB   plain peak RSS MB",
  );
  for (const r of results) {
    console.log(
      `${r.store.padEnd(9)} ${fmt(r.joinRate).padStart(13)} ${fmt(r.plainRate).padStart(20)} ${fmt(r.joinRate / r.plainRate, 2).padStart(7)} ${fmt(r.joinRss).padStart(20)} ${fmt(r.plainRss).padStart(19)}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function benchStore(store: string): Promise<Measured> {
  const joined = { rates: [] as number[], rss: [] as number[] };
  const direct = { rates: [] as number[], rss: [] as number[] };
  for (let rep = 0; rep < reps; rep += 1) {
    const withAnswers = ["--answers", answers, "--answers-format", "openai-batch"];
    const join = await timedRun(reference, withAnswers, await freshStore(store, `join${rep}`));
    const plainRun = await timedRun(plain, [], await freshStore(store, `plain${rep}`));
    joined.rates.push(join.rate);
    joined.rss.push(join.rss);
    direct.rates.push(plainRun.rate);
    direct.rss.push(plainRun.rss);
    console.log(
      `${store} rep ${rep + 1}: joined ${fmt(join.rate)} rows/s (${fmt(join.rss)} MB), plain ${fmt(plainRun.rate)} rows/s (${fmt(plainRun.rss)} MB)`,
    );
  }
  return {
    store,
    joinRate: median(joined.rates),
    plainRate: median(direct.rates),
    joinRss: median(joined.rss),
    plainRss: median(direct.rss),
  };
}

async function timedRun(dataset: string, extra: string[], db: string[]) {
  const { run, summary } = await timeAssayRun(dataset, [
    "--spec",
    spec,
    "--run-id",
    "bench",
    ...extra,
    ...db,
  ]);
  if (summary.results !== rows) throw new Error(`expected ${rows} results, got ${summary.results}`);
  return { rate: rows / (run.wallMs / 1000), rss: run.peakRssMb };
}

async function freshStore(store: string, name: string): Promise<string[]> {
  if (store === "pglite") return ["--db", join(work, `store-${name}`)];
  return ["--db", await freshPostgres(flags.postgres, `assay_bench_join_${name}`)];
}

/** The reference, its batch output (in reverse order) and the same samples as plain JSONL. */
async function writeFiles(): Promise<void> {
  const ref = createWriteStream(reference);
  const out = createWriteStream(answers);
  const direct = createWriteStream(plain);
  for (let i = 0; i < rows; i += 1) {
    const id = `s${i}`;
    const row = { id, question: `What is item ${i}?`, target: `item ${i % 7}` };
    const answer = `item ${i % 5}`;
    const usage = {
      prompt_tokens: 120,
      completion_tokens: 8,
      prompt_tokens_details: { cached_tokens: 64 },
    };
    const generator = {
      model: "gen",
      input_tokens: 120,
      cached_input_tokens: 64,
      output_tokens: 8,
    };
    const batchLine = {
      custom_id: `s${rows - 1 - i}`,
      response: {
        status_code: 200,
        body: {
          model: "gen",
          choices: [
            { index: 0, message: { role: "assistant", content: `item ${(rows - 1 - i) % 5}` } },
          ],
          usage,
        },
      },
      error: null,
    };
    const writes = [
      write(ref, JSON.stringify(row)),
      write(out, JSON.stringify(batchLine)),
      write(direct, JSON.stringify({ ...row, answer, generator })),
    ];
    if (writes.some((ok) => !ok)) await Promise.all([ref, out, direct].map((s) => drained(s)));
  }
  await Promise.all([ref, out, direct].map((s) => closed(s)));
}

function write(stream: ReturnType<typeof createWriteStream>, line: string): boolean {
  return stream.write(`${line}\n`);
}

async function drained(stream: ReturnType<typeof createWriteStream>): Promise<void> {
  if (stream.writableNeedDrain) await once(stream, "drain");
}

async function closed(stream: ReturnType<typeof createWriteStream>): Promise<void> {
  stream.end();
  await once(stream, "close");
}

async function writeLines(path: string, lines: string[]): Promise<void> {
  const stream = createWriteStream(path);
  stream.write(`${lines.join("\n")}\n`);
  await closed(stream);
}
