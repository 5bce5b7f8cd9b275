import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { builtCli } from "@assay/test-support/built-entry";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";
import { readmeBlock } from "@assay/test-support/readme-block";
import { REPO_ROOT } from "@assay/test-support/run-assay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm run example:batch-join` runs this script after a build: a Parquet reference, an
// OpenAI and an Anthropic batch output, joined, scored, and read back from the analyst
// views as cost per solved task per model. docs/cli.md quotes its query and its output.
const SCRIPT = join(REPO_ROOT, "examples/batch-join/run-example.mjs");
const out = mkdtempSync(join(tmpdir(), "assay-batch-join-example-"));
let example: ProcessOutput;

beforeAll(async () => {
  builtCli();
  const child = spawn(process.execPath, [SCRIPT, out], { stdio: ["ignore", "pipe", "pipe"] });
  example = await processOutput(child);
}, 600_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the batch-join example", () => {
  it("joins the Parquet reference to both batch outputs and counts what did not join", () => {
    expect(example.code, example.stderr).toBe(ExitCode.ok);
    // OpenAI: q3's request errored; Anthropic: q4 expired, q6 never asked, q7 names no row.
    expect(example.stdout).toContain(
      "Answers joined: 5; missing answers: 1; unmatched answers: 0; failed requests: 1",
    );
    expect(example.stdout).toContain(
      "Answers joined: 4; missing answers: 2; unmatched answers: 1; failed requests: 1",
    );
    expect(example.stdout).toContain(
      'examples/batch-join/reference.parquet:6: field `id`: missing answer: no answer line has custom_id "q6"',
    );
  });

  it("ends with the cost per solved task per model that docs/cli.md quotes", () => {
    expect(example.code, example.stderr).toBe(ExitCode.ok);
    const printed = readmeBlock("The example prints", "docs/cli.md").join("\n");
    expect(example.stdout.trimEnd().endsWith(printed)).toBe(true);
  });

  it("runs the query docs/cli.md gives", () => {
    const query = readFileSync(join(REPO_ROOT, "examples/batch-join/cost-per-solved.sql"), "utf8");
    const page = readFileSync(join(REPO_ROOT, "docs/cli.md"), "utf8");
    expect(page).toContain(`\`\`\`sql\n${query}\`\`\``);
    expect(example.stdout).toContain(query.trim());
  });
});
