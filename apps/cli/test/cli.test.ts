import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

const work = mkdtempSync(join(tmpdir(), "assay-cli-"));
const db = join(work, "store");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const EXAMPLE = ["examples/mixed.jsonl", "--spec", "examples/mixed.spec.yaml"];

function write(name: string, content: string): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

describe("assay CLI", () => {
  it("lists its commands in --help", async () => {
    const { code, stdout } = await assayInProcess(["--help"]);
    expect(code).toBe(ExitCode.ok);
    for (const command of ["run", "report", "export", "migrate"]) expect(stdout).toContain(command);
  });

  it("exits 2 with a clear message on a bad option value", async () => {
    const { code, stderr } = await assayInProcess(["run", "x.jsonl", "--concurrency", "0"]);
    expect(code).toBe(ExitCode.usage);
    expect(stderr).toMatch(/--concurrency to be an integer from 1 and up, got "0"/);
  });

  it("scores the example dataset, then reports and exports the same run from the store", async () => {
    const run = await assayInProcess(["run", ...EXAMPLE, "--run-id", "ex", "--db", db, "--json"]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const summary = JSON.parse(run.stdout);
    expect(summary.results).toBe(summary.planned);
    expect(summary.inputErrors).toBe(0);
    expect(summary.finishedAt).not.toBeNull();
    const rules = new Set(summary.groups.map((g: { rule: string }) => g.rule));
    expect([...rules].sort()).toEqual([
      "invoice-json",
      "multiple-choice",
      "numeric-answer",
      "short-answer",
      "tool-call",
    ]);

    const report = await assayInProcess(["report", "ex", "--db", db, "--json"]);
    expect(report.code).toBe(ExitCode.ok);
    expect(JSON.parse(report.stdout).groups).toEqual(summary.groups);
    const stops = await assayInProcess([
      "report",
      "ex",
      "--db",
      db,
      "--json",
      "--fall-steps",
      "2",
      "--min-fall",
      "0.05",
    ]);
    expect(JSON.parse(stops.stdout).earlyStops).toEqual({
      fallSteps: 2,
      minFall: 0.05,
      total: 0,
      candidates: [],
    });
    const badSteps = await assayInProcess(["report", "ex", "--db", db, "--fall-steps", "0"]);
    expect(badSteps.code).toBe(ExitCode.usage);
    expect(badSteps.stderr).toMatch(/--fall-steps to be an integer from 1 and up, got "0"/);
    const badFall = await assayInProcess(["report", "ex", "--db", db, "--min-fall=-1"]);
    expect(badFall.code).toBe(ExitCode.usage);
    expect(badFall.stderr).toMatch(/--min-fall to be a number from 0 and up, got "-1"/);

    const table = await assayInProcess(["report", "ex", "--db", db]);
    expect(table.stdout).toMatch(/Routing: which rule sent samples to which scorer/);
    expect(table.stdout).toMatch(/multiple-choice\s+│\s+choice/);

    const csvPath = join(work, "ex.csv");
    const csv = await assayInProcess([
      "export",
      "ex",
      "--db",
      db,
      "--format",
      "csv",
      "--out",
      csvPath,
    ]);
    expect(csv.code, csv.stderr).toBe(ExitCode.ok);
    const csvLines = readFileSync(csvPath, "utf8").trim().split("\n");
    expect(csvLines[0]).toBe(
      "run_id,sample_id,task_id,scorer,criterion,repetition,status,value,reason,rule,detail",
    );
    expect(csvLines).toHaveLength(summary.results + 1);

    const jsonl = await assayInProcess(["export", "ex", "--db", db]);
    const rows = jsonl.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows).toHaveLength(summary.results);
    expect(
      rows
        .filter((r: { status: string }) => r.status === "unscored")
        .every((r: { reason: string | null }) => r.reason !== null),
    ).toBe(true);
  });

  it("resumes a run: the second attempt skips what is stored", async () => {
    const lines = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({ id: `q${i}`, question: "q", answer: `a${i}`, target: [`a${i}`] }),
    );
    const first = write("resume.jsonl", `${lines.slice(0, 20).join("\n")}\n`);
    expect((await assayInProcess(["run", first, "--run-id", "resume", "--db", db])).code).toBe(
      ExitCode.ok,
    );
    write("resume.jsonl", `${lines.join("\n")}\n`);
    const second = await assayInProcess(["run", first, "--run-id", "resume", "--db", db, "--json"]);
    expect(second.code).toBe(ExitCode.ok);
    expect(second.stderr).toMatch(/Resuming run resume/);
    expect(second.stderr).toMatch(/Skipped 40 results already stored/);
    expect(JSON.parse(second.stdout).results).toBe(60);
  });

  it("stores bad lines as input errors, scores the rest, and exits 4", async () => {
    const { code, stdout } = await assayInProcess([
      "run",
      "examples/bad-lines.jsonl",
      "--run-id",
      "bad",
      "--db",
      db,
    ]);
    expect(code).toBe(ExitCode.inputErrors);
    expect(stdout).toMatch(/examples\/bad-lines\.jsonl:2: malformed JSON/);
    expect(stdout).toMatch(
      /examples\/bad-lines\.jsonl:4: field `answer`: answer must be a string, got 8/,
    );
  });

  it("exits 0 on the same input errors with --allow-input-errors, still listing them", async () => {
    const { code, stdout } = await assayInProcess([
      "run",
      "examples/bad-lines.jsonl",
      "--allow-input-errors",
      "--run-id",
      "bad-allowed",
      "--db",
      db,
    ]);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toMatch(/examples\/bad-lines\.jsonl:2: malformed JSON/);
  });

  it("--strict refuses an invalid dataset before storing anything", async () => {
    const run = await assayInProcess([
      "run",
      "examples/bad-lines.jsonl",
      "--strict",
      "--run-id",
      "strict",
      "--db",
      db,
    ]);
    expect(run.code).toBe(ExitCode.refused);
    expect(run.stderr).toMatch(
      /--strict: refused .*bad-lines\.jsonl: \d+ invalid lines, nothing was scored/,
    );
    const report = await assayInProcess(["report", "strict", "--db", db]);
    expect(report.code).toBe(ExitCode.refused);
    expect(report.stderr).toMatch(/No run "strict"/);
  });

  it.each([
    {
      problem: "an unknown scorer, naming the rule and the known scorers",
      rule: "rules:\n  - name: mine\n    when: { target_type: string }\n    scorers: [{ name: bleu }]\n",
      expected: [/rule "mine"/, /bleu/, /f1/],
    },
    {
      problem: "bad scorer arguments, naming the rule and the field",
      rule: "rules:\n  - name: nums\n    when: { target_type: number }\n    scorers: [{ name: numeric, args: { tolerance: -1 } }]\n",
      expected: [/rule "nums"/, /tolerance/],
    },
    {
      problem: "a selection naming a scorer no rule uses",
      rule: "rules:\n  - name: any\n    when: { target_type: string }\n    scorers: [{ name: exact }]\nselection: { verifier: verifier }\n",
      expected: [/selection\.verifier/, /known: exact/],
    },
  ])("refuses a spec with $problem", async ({ rule, expected }) => {
    const spec = write(`spec-${Math.random()}.yaml`, rule);
    const { code, stderr } = await assayInProcess([
      "run",
      "examples/mixed.jsonl",
      "--spec",
      spec,
      "--db",
      db,
    ]);
    expect(code).toBe(ExitCode.refused);
    for (const pattern of expected) expect(stderr).toMatch(pattern);
  });

  it("refuses a missing dataset", async () => {
    const { code, stderr } = await assayInProcess(["run", join(work, "nope.jsonl"), "--db", db]);
    expect(code).toBe(ExitCode.refused);
    expect(stderr).toMatch(/nope\.jsonl: file not found/);
  });
});
