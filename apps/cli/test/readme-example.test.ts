import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readmeBlock } from "@assay/test-support/readme-block";
import { runAssay } from "@assay/test-support/run-assay";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The summary the README's Quick start shows is the one `npm run example` prints today.

const work = mkdtempSync(join(tmpdir(), "assay-readme-example-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the README's example summary", () => {
  it("is what scoring examples/mixed.jsonl prints, but for the run id and the time", async () => {
    const [first, ...rest] = readmeBlock("prints a summary like this");
    expect(first).toMatch(/^Run \S+ \(mixed-example\): finished \S+$/);
    const run = await runAssay([
      "run",
      "examples/mixed.jsonl",
      "--spec",
      "examples/mixed.spec.yaml",
      "--db",
      join(work, "store"),
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    expect(run.stdout).toMatch(/^Run \S+ \(mixed-example\): finished \S+$/m);
    expect(run.stdout).toContain(rest.join("\n"));
  });
});
