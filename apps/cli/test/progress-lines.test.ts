import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// With stderr a pipe (CI, a log file), progress is plain lines: no bar, no escape codes.
const work = mkdtempSync(join(tmpdir(), "assay-progress-lines-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SAMPLES = 3000;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample

const assay = (args: string[]) => assayInProcess(args, { cwd: work });

beforeAll(() => {
  const lines = Array.from({ length: SAMPLES }, (_, i) =>
    JSON.stringify({ id: `s${i}`, question: "q", answer: `a${i}`, target: [`a${i}`] }),
  );
  // One bad line: the final counts name it.
  writeFileSync(join(work, "data.jsonl"), `${lines.join("\n")}\n{"id": "broken"\n`);
});

describe("assay run's progress in a log", () => {
  it("starts with the read at once and ends with a line of the final counts", async () => {
    const run = await assay(["run", "data.jsonl", "--run-id", "logged", "--db", "store"]);
    expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
    expect(run.stderr).not.toContain("\x1b");
    const lines = run.stderr.split("\n");
    expect(lines[0]).toMatch(/^Run logged /);
    expect(lines[1]).toMatch(
      /^reading dataset 0% \(0 B of [\d.]+ kB\): 0 results stored, 0 input errors, – results\/s, ETA –$/,
    );
    const final = lines.findIndex((line) => /^done: /.test(line));
    expect(lines[final]).toMatch(
      new RegExp(
        `^done: ${PLANNED}/${PLANNED} results stored: ${PLANNED} scored, 0 unscored, 1 input errors; ` +
          "\\d+s elapsed, mean \\d+ results/s$",
      ),
    );
    // No progress line after it: the last word is the final one.
    expect(lines.slice(final + 1).filter((line) => /results\/s/.test(line))).toEqual([]);
  });

  it("gives a run over before a second look its mean rate all the same", async () => {
    const tiny = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ id: `t${i}`, question: "q", answer: "a", target: ["a"] }),
    );
    writeFileSync(join(work, "tiny.jsonl"), `${tiny.join("\n")}\n`);
    const run = await assay(["run", "tiny.jsonl", "--run-id", "tiny", "--db", "store"]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    expect(run.stderr).toMatch(/^done: 10\/10 results stored: .*, mean \d+ results\/s$/m);
  });

  it("prints nothing of it with --quiet", async () => {
    const run = await assay(["run", "data.jsonl", "--run-id", "quiet", "--db", "store", "--quiet"]);
    expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
    expect(run.stderr).not.toMatch(/reading dataset|results stored/);
  });
});
