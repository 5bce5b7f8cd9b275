import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { runAssay } from "../run-assay.js";
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

type Store = "pglite" | "postgres";

async function storeFlags(store: Store, name: string): Promise<string[]> {
  if (store === "pglite") return ["--db", join(work, `${name}-store`)];
  const schema = freshSchema();
  schemas.push(schema);
  const flags = ["--db", DATABASE_URL, "--db-schema", schema];
  const migrate = await runAssay(["migrate", ...flags]);
  expect(migrate.code, migrate.stderr).toBe(0);
  return flags;
}

async function assay(args: string[]) {
  return runAssay(args, { cwd: work });
}

async function exportedTable(run: string, table: string, db: string[]) {
  const result = await assay(["export", run, "--table", table, "--format", "jsonl", ...db]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const { run_id: _run, created_at: _at, line: _line, ...row } = JSON.parse(line);
      return row as Record<string, unknown>;
    });
}

async function stored(run: string, db: string[]) {
  const scores = await exportedTable(run, "scores", db);
  const usage = await exportedTable(run, "usage", db);
  const samples = await exportedTable(run, "samples", db);
  const report = await assay(["report", run, "--prices", prices, "--json", ...db]);
  expect(report.code, report.stderr).toBe(0);
  const { cost } = JSON.parse(report.stdout).report as { cost: unknown };
  return { scores, usage, samples, cost };
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
      const joined = await assay([
        ...run,
        "--answers-format",
        format,
        "--run-id",
        "joined",
        "--json",
        ...db,
      ]);
      // Exit 4: the run completed, and what did not join is listed as input errors.
      expect(joined.code, joined.stderr).toBe(4);
      const summary = JSON.parse(joined.stdout);
      expect(summary.answers).toEqual(counts);
      const inputErrors = await exportedTableWithLines("joined", "input_errors", db);
      expect(
        inputErrors.map((e) => [
          e.file === answers ? "answers" : "reference",
          e.line,
          e.field,
          e.message,
        ]),
      ).toEqual(
        errors.map(([file, line, field, message]) => [
          file,
          line,
          field,
          expect.stringContaining(message),
        ]),
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
        ...db,
      ]);
      expect(plain.code, plain.stderr).toBe(0);
      const fromJoin = await stored("joined", db);
      expect(fromJoin.scores.length).toBeGreaterThan(0);
      expect(fromJoin.usage.every((row) => row.role === "generator")).toBe(true);
      expect(fromJoin).toEqual(await stored("direct", db));

      // A rerun with the same files stores nothing new and counts the same.
      const rerun = await assay([
        ...run,
        "--answers-format",
        format,
        "--run-id",
        "joined",
        "--json",
        ...db,
      ]);
      expect(rerun.code, rerun.stderr).toBe(4);
      expect(rerun.stderr).toContain("already stored");
      expect(JSON.parse(rerun.stdout).answers).toEqual(counts);
      expect(await stored("joined", db)).toEqual(fromJoin);
    },
  );
});

async function exportedTableWithLines(run: string, table: string, db: string[]) {
  const result = await assay(["export", run, "--table", table, "--format", "jsonl", ...db]);
  expect(result.code, result.stderr).toBe(0);
  const rows = result.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const order = (row: Record<string, unknown>) => `${row.file === reference ? 1 : 0}:${row.line}`;
  return rows.sort((a, b) => order(a).localeCompare(order(b)));
}
