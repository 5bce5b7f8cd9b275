import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay export --table` writes every raw table a report is computed from, so a reviewer
// can recompute any figure without the report's queries.

const work = mkdtempSync(join(tmpdir(), "assay-export-tables-"));
const db = join(work, "store");

beforeAll(async () => {
  const line = (id: string, answers: [string, boolean | null][], kind: string) =>
    JSON.stringify({
      id,
      question: `What is ${id}?`,
      target: "paris",
      metadata: { kind },
      candidates: answers.map(([answer, label]) => ({
        answer,
        ...(label !== null && { label }),
        generator: { model: "gen-1", input_tokens: 100, output_tokens: 20 },
      })),
    });
  const lines = [
    line(
      "t1",
      [
        ["paris", true],
        ["rome", false],
      ],
      "=formula",
    ),
    line(
      "t2",
      [
        ["lyon", false],
        ["Paris", null],
        ["paris", true],
      ],
      "geo",
    ),
    '{"id": "bad", "question": 3}',
    line("t3", [["nice", false]], "geo"),
  ];
  writeFileSync(join(work, "data.jsonl"), `${lines.join("\n")}\n`);
  writeFileSync(
    join(work, "spec.yaml"),
    "default:\n  scorers: [{ name: exact }, { name: f1 }]\nselection: { verifier: f1 }\n",
  );
  const run = await assayInProcess(
    ["run", "data.jsonl", "--spec", "spec.yaml", "--run-id", "r", "--db", db, "--quiet"],
    { cwd: work },
  );
  // Exit 4: the run completed with one input error (the bad line).
  expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function exported(table: string, format: "jsonl" | "csv") {
  const out = join(work, `${table}.${format}`);
  const result = await assayInProcess(
    ["export", "r", "--db", db, "--table", table, "--format", format, "--out", out],
    { cwd: work },
  );
  expect(result.code, result.stderr).toBe(ExitCode.ok);
  const text = readFileSync(out, "utf8");
  return format === "csv"
    ? (parse(text, { columns: true }) as Record<string, string>[])
    : text
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("assay export --table", () => {
  it("writes the run's samples with their labels, candidates and metadata", async () => {
    const rows = await exported("samples", "jsonl");
    expect(rows.map((r) => [r.sample_id, r.task_id, r.candidate_index, r.label])).toEqual([
      ["t1#0", "t1", 0, true],
      ["t1#1", "t1", 1, false],
      ["t2#0", "t2", 0, false],
      ["t2#1", "t2", 1, null],
      ["t2#2", "t2", 2, true],
      ["t3#0", "t3", 0, false],
    ]);
    expect(rows[0]?.metadata).toEqual({ kind: "=formula" });
    expect(rows[0]).not.toHaveProperty("created_at");
  });

  it("writes one selection per task, the generator's usage and the input errors", async () => {
    const selections = await exported("selections", "jsonl");
    expect(selections.map((s) => [s.task_id, s.selected_sample_id, s.selected_correct])).toEqual([
      ["t1", "t1#0", true],
      // "Paris" and "paris" tie on f1; the lower index wins, its label unknown.
      ["t2", "t2#1", null],
      ["t3", "t3#0", false],
    ]);
    const usage = await exported("usage", "jsonl");
    expect(usage).toHaveLength(6);
    expect(usage.every((u) => u.role === "generator" && u.input_tokens === 100)).toBe(true);
    const errors = await exported("input_errors", "jsonl");
    expect(errors.map((e) => [e.line, e.field])).toEqual([[3, "question"]]);
    expect(await exported("truncations", "jsonl")).toEqual([]);
  });

  it("writes the same rows as CSV: booleans as true/false, JSON as JSON, no formulas", async () => {
    const rows = await exported("samples", "csv");
    expect(Object.keys(rows[0] ?? {})).toEqual([
      "run_id",
      "sample_id",
      "task_id",
      "candidate_index",
      "label",
      "line",
      "metadata",
    ]);
    expect(rows.map((r) => r.label)).toEqual(["true", "false", "false", "", "true", "false"]);
    expect(rows[0]?.metadata).toBe('{"kind":"=formula"}');
    const scores = await exported("scores", "csv");
    expect(scores).toHaveLength(12);
    expect(Object.keys(scores[0] ?? {}).at(-1)).toBe("detail");
  });

  it("takes --format json and --json as JSON Lines, as report and show take them", async () => {
    const jsonLines = await assayInProcess(["export", "r", "--db", db, "--format", "jsonl"], {
      cwd: work,
    });
    expect(jsonLines.code, jsonLines.stderr).toBe(ExitCode.ok);
    expect(jsonLines.stdout.trim().split("\n")).toHaveLength(12);
    for (const flags of [["--format", "json"], ["--json"]]) {
      const result = await assayInProcess(["export", "r", "--db", db, ...flags], { cwd: work });
      expect(result.code, result.stderr).toBe(ExitCode.ok);
      expect(result.stdout).toBe(jsonLines.stdout);
    }
  });

  it("refuses a table it does not know, naming the ones it does", async () => {
    const result = await assayInProcess(["export", "r", "--db", db, "--table", "scorez"], {
      cwd: work,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/scorez/);
    expect(result.stderr).toMatch(/samples, truncations, usage, selections, input_errors/);
  });
});
