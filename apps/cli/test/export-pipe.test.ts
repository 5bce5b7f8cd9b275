import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtCli } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay export run | head` is how one looks at a run: the reader going away after a few
// lines is no failure. The built CLI is run, as users run it.
const MAIN = builtCli();
const work = mkdtempSync(join(tmpdir(), "assay-export-pipe-"));
const store = join(work, "store");
const env = { ...process.env, DATABASE_URL: undefined };

function assay(args: string[]) {
  return spawn(process.execPath, [MAIN, ...args], {
    cwd: work,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

beforeAll(async () => {
  const lines = Array.from({ length: 5000 }, (_, i) =>
    JSON.stringify({ id: `s${i}`, question: `Q${i}?`, answer: "a fox", target: ["a fox"] }),
  );
  writeFileSync(join(work, "data.jsonl"), `${lines.join("\n")}\n`);
  writeFileSync(join(work, "spec.yaml"), "default:\n  scorers: [{ name: f1 }]\n");
  const run = await processOutput(
    assay(["run", "data.jsonl", "--spec", "spec.yaml", "--run-id", "r", "--db", store, "--quiet"]),
  );
  expect(run.code, run.stderr).toBe(ExitCode.ok);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay export into a reader that stops early", () => {
  it.each(["jsonl", "csv"])("ends quietly with exit 0 (%s)", async (format) => {
    const full = join(work, `full.${format}`);
    const whole = await processOutput(
      assay(["export", "r", "--db", store, "--format", format, "--out", full]),
    );
    expect(whole.code, whole.stderr).toBe(ExitCode.ok);

    const child = assay(["export", "r", "--db", store, "--format", format]);
    let received = 0;
    child.stdout.once("data", (chunk: Buffer) => {
      received = chunk.length;
      child.stdout.destroy(); // what `| head -1` does once it has its line
    });
    const { code, stderr } = await processOutput(child);
    // The fault hit: the reader left with most of the export still to be written.
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(statSync(full).size / 2);
    expect(stderr).toBe("");
    expect(code).toBe(ExitCode.ok);
  });
});
