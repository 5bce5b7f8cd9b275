import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenStoreOptions, openStore } from "@assay/store";
import { runAssay } from "@assay/test-support/run-assay";
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
  const migrate = await runAssay(["migrate", ...flags]);
  expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
  return { flags, options: { databaseUrl: DATABASE_URL, schema } };
}

async function assay(args: string[]) {
  return runAssay(args, { cwd: work });
}

/** A table's rows of one run, as a reviewer would export them, without run, line or time. */
async function tableRows(db: TestDb, run: string, table: string, order: string) {
  const rows = await rowsOf(db, run, table, order);
  return rows.map(({ line: _line, ...row }) => row);
}

/** A table's rows of one run, without run or time. */
async function rowsOf(db: TestDb, run: string, table: string, order: string) {
  const store = await openStore(db.options);
  try {
    const rows = (await queryRows(
      store,
      `SELECT * FROM ${table} WHERE run_id = '${run}' ORDER BY ${order}`,
    )) as Record<string, unknown>[];
    return rows.map(({ run_id: _run, created_at: _at, ...row }) => row);
  } finally {
    await store.close();
  }
}

async function stored(run: string, db: TestDb) {
  return {
    scores: await tableRows(db, run, "scores", "sample_id, scorer"),
    usage: await tableRows(db, run, "usage", "sample_id, role, scorer"),
    samples: await tableRows(db, run, "samples", "sample_id"),
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
    },
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
    },
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
    async ({ format, output, direct, counts, errors }) => {
      const answers = write(`${format}.jsonl`, jsonl(output));
      const db = await storeFlags(store, `${format}-${store}`);
      const run = ["run", reference, "--spec", spec, "--answers", answers];
      const joinArgs = [...run, "--answers-format", format, "--run-id", "joined", "--json"];
      const joined = await assay([...joinArgs, ...db.flags]);
      // Exit 4: the run completed, and what did not join is listed as input errors.
      expect(joined.code, joined.stderr).toBe(ExitCode.inputErrors);
      expect(JSON.parse(joined.stdout).answers).toEqual(counts);
      const inputErrors = (await rowsOf(db, "joined", "input_errors", "file, line")).map((e) => [
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
      const fromJoin = await stored("joined", db);
      expect(fromJoin.scores.length).toBeGreaterThan(0);
      expect(fromJoin.usage.every((row) => row.role === "generator")).toBe(true);
      expect(fromJoin).toEqual(await stored("direct", db));
      // The report prices both alike, and shows the join's counts, stored with the run.
      const joinedReport = await reported("joined", db);
      expect(joinedReport.answers).toEqual(counts);
      expect(joinedReport.cost).toEqual((await reported("direct", db)).cost);

      // A rerun with the same files stores nothing new and counts the same.
      const rerun = await assay([...joinArgs, ...db.flags]);
      expect(rerun.code, rerun.stderr).toBe(ExitCode.inputErrors);
      expect(rerun.stderr).toContain("already stored");
      expect(JSON.parse(rerun.stdout).answers).toEqual(counts);
      expect(await stored("joined", db)).toEqual(fromJoin);
    },
    // Six commands in child processes, each loading the CLI from source.
    900_000,
  );
});
