import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenStoreOptions, openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema, queryRows } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/exit-codes.js";
import {
  ANTHROPIC_AS_JSONL,
  ANTHROPIC_OUTPUT,
  jsonl,
  OPENAI_AS_JSONL,
  OPENAI_OUTPUT,
  PRICES,
  REFERENCE,
  SPEC,
} from "./batch-fixtures.js";

// `assay run <reference> --answers <batch output>`: the answers of a batch job joined to
// the reference rows on custom_id store the same scores, usage and cost as the same
// answers written as Assay JSONL, and every row or answer that did not join is counted.

const work = mkdtempSync(join(tmpdir(), "assay-batch-join-"));
const schemas: string[] = [];
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

function write(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const reference = write("reference.jsonl", jsonl(REFERENCE));
const spec = write("spec.yaml", SPEC);
const prices = write("prices.yaml", PRICES);

type StoreKind = "pglite" | "postgres";

interface TestDb {
  flags: string[];
  options: OpenStoreOptions;
}

async function storeFlags(store: StoreKind, name: string): Promise<TestDb> {
  if (store === "pglite") {
    const dataDir = join(work, `${name}-store`);
    return { flags: ["--db", dataDir], options: { dataDir } };
  }
  const schema = freshSchema();
  schemas.push(schema);
  const flags = ["--db", DATABASE_URL, "--db-schema", schema];
  const migrate = await assayInProcess(["migrate", ...flags]);
  expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
  return { flags, options: { databaseUrl: DATABASE_URL, schema } };
}

async function assay(args: string[]) {
  return assayInProcess(args, { cwd: work });
}

/** A table's rows of one run, without run or time. */
async function rowsOf(store: Store, run: string, table: string, order: string) {
  const rows = (await queryRows(
    store,
    `SELECT * FROM ${table} WHERE run_id = '${run}' ORDER BY ${order}`,
  )) as Record<string, unknown>[];
  return rows.map(({ run_id: _run, created_at: _at, ...row }) => row);
}

/** A table's rows of one run, as a reviewer would export them, without run, line or time. */
async function tableRows(store: Store, run: string, table: string, order: string) {
  return (await rowsOf(store, run, table, order)).map(({ line: _line, ...row }) => row);
}

async function withStore<T>(db: TestDb, read: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(db.options);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/** What a run stored: its scores, usage and samples. */
async function storedIn(store: Store, run: string) {
  return {
    scores: await tableRows(store, run, "scores", "sample_id, scorer"),
    usage: await tableRows(store, run, "usage", "sample_id, role, scorer"),
    samples: await tableRows(store, run, "samples", "sample_id"),
  };
}

/** The report's cost of a run and the answer-join counts it shows. */
async function reported(run: string, db: TestDb) {
  const report = await assay(["report", run, "--prices", prices, "--json", ...db.flags]);
  expect(report.code, report.stderr).toBe(ExitCode.ok);
  const parsed = JSON.parse(report.stdout);
  return { cost: parsed.report.cost as unknown, answers: parsed.answers as unknown };
}

const FORMATS = [
  {
    format: "openai-batch",
    output: OPENAI_OUTPUT,
    direct: OPENAI_AS_JSONL,
    counts: {
      joined: 3,
      missingAnswers: 2,
      unmatchedAnswers: 1,
      failedRequests: 1,
      duplicateAnswers: 1,
      retriedFailures: 0,
      // q1's second line (7 in, 7 out) and q9's (10 in, 1 out): billed, joined no row.
      unjoined: [
        {
          model: "gpt-x",
          lines: 2,
          inputTokens: 17,
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          outputTokens: 8,
        },
      ],
    },
    // At 2 input and 8 output per million.
    unjoinedCost: (17 * 2 + 8 * 8) / 1e6,
    errors: [
      ["answers", 3, "error", "request q3 errored: The server had an error"],
      ["answers", 4, "custom_id", 'duplicate custom_id "q1" (first given on line 1'],
      ["answers", 5, "custom_id", 'unmatched answer "q9"'],
      ["reference", 3, "id", 'the request with custom_id "q3" errored'],
      ["reference", 4, "id", 'no answer line has custom_id "q4"'],
    ],
  },
  {
    format: "anthropic-batch",
    output: ANTHROPIC_OUTPUT,
    direct: ANTHROPIC_AS_JSONL,
    counts: {
      joined: 2,
      missingAnswers: 3,
      unmatchedAnswers: 1,
      failedRequests: 2,
      duplicateAnswers: 1,
      retriedFailures: 0,
      // q9 (1 in, 1 out) and q5's second line (99 in, 99 out).
      unjoined: [
        {
          model: "claude-x",
          lines: 2,
          inputTokens: 100,
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          outputTokens: 100,
        },
      ],
    },
    // At 3 input and 15 output per million.
    unjoinedCost: (100 * 3 + 100 * 15) / 1e6,
    errors: [
      ["answers", 2, "result.type", "request q2 expired"],
      ["answers", 3, "result.type", "request q3 errored: Overloaded"],
      ["answers", 4, "custom_id", 'unmatched answer "q9"'],
      ["answers", 6, "custom_id", 'duplicate custom_id "q5" (first given on line 5'],
      ["reference", 2, "id", 'the request with custom_id "q2" expired'],
      ["reference", 3, "id", 'the request with custom_id "q3" errored'],
      ["reference", 4, "id", 'no answer line has custom_id "q4"'],
    ],
  },
] as const;

describe.each(["pglite", "postgres"] as const)("assay run --answers (%s)", (store) => {
  it.each(FORMATS)(
    "joins $format output: stores what the same answers as JSONL store, counts what did not join",
    async ({ format, output, direct, counts, unjoinedCost, errors }) => {
      const answers = write(`${format}.jsonl`, jsonl(output));
      const db = await storeFlags(store, `${format}-${store}`);
      const run = ["run", reference, "--spec", spec, "--answers", answers];
      const joinArgs = [...run, "--answers-format", format, "--run-id", "joined", "--json"];
      const joined = await assay([...joinArgs, ...db.flags]);
      // Exit 4: the run completed, and what did not join is listed as input errors.
      expect(joined.code, joined.stderr).toBe(ExitCode.inputErrors);
      expect(JSON.parse(joined.stdout).answers).toEqual(counts);
      const directFile = write(`${format}-direct.jsonl`, jsonl(direct.lines));
      const directSpec = write(`${format}-direct.yaml`, direct.spec);
      const plain = await assay([
        "run",
        directFile,
        "--spec",
        directSpec,
        "--run-id",
        "direct",
        "--quiet",
        ...db.flags,
      ]);
      expect(plain.code, plain.stderr).toBe(ExitCode.ok);
      // The report prices both alike, and shows the join's counts, stored with the run, and
      // what the lines that joined no row were billed.
      const joinedReport = await reported("joined", db);
      expect(joinedReport.answers).toEqual({
        ...counts,
        unjoinedCost: { amount: expect.closeTo(unjoinedCost, 12), currency: "USD" },
      });
      expect(joinedReport.cost).toEqual((await reported("direct", db)).cost);
      // The text report says it once, with the cost of what joined no row.
      const text = await assay(["report", "joined", "--prices", prices, ...db.flags]);
      expect(text.stdout.split("Answers joined:").length - 1, text.stdout).toBe(1);
      expect(text.stdout).toContain("Billed but not joined");

      // A rerun with the same files stores nothing new and counts the same.
      const rerun = await assay([...joinArgs, ...db.flags]);
      expect(rerun.code, rerun.stderr).toBe(ExitCode.inputErrors);
      expect(rerun.stderr).toContain("already stored");
      expect(JSON.parse(rerun.stdout).answers).toEqual(counts);

      // The store read once, after the rerun (an embedded store is slow to open): the join
      // stored what the same answers as JSONL stored, once, and its input errors once.
      const {
        joined: fromJoin,
        direct: fromJsonl,
        errorRows,
      } = await withStore(db, async (store) => ({
        joined: await storedIn(store, "joined"),
        direct: await storedIn(store, "direct"),
        errorRows: await rowsOf(store, "joined", "input_errors", "file, line"),
      }));
      expect(fromJoin.scores.length).toBeGreaterThan(0);
      expect(fromJoin.usage.every((row) => row.role === "generator")).toBe(true);
      expect(fromJoin).toEqual(fromJsonl);
      const inputErrors = errorRows.map((e) => [
        e.file === answers ? "answers" : "reference",
        e.line,
        e.field,
        e.message,
      ]);
      expect(inputErrors.sort()).toEqual(
        errors
          .map(([file, line, field, message]) => [
            file,
            line,
            field,
            expect.stringContaining(message),
          ])
          .sort(),
      );
    },
    // Six commands, two of them runs: minutes on a busy machine.
    900_000,
  );
});
