import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay status` follows distributed runs only; on the embedded store it says so and names
// the command that reads a run there, with an example URL that is usable as written.

const work = mkdtempSync(join(tmpdir(), "assay-status-embedded-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay status without a Postgres server", () => {
  it("points to `assay report` and shows a URL without a masked password", async () => {
    const result = await assayInProcess(["status", "nightly-1"], { cwd: work });
    expect(result.code).toBe(ExitCode.unavailable);
    expect(result.stderr).toContain("Distributed mode (produce, worker, status, retry)");
    expect(result.stderr).toContain("--db postgres://user@host:5432/db");
    expect(result.stderr).toContain("`assay report <run-id>`");
    expect(result.stderr).not.toContain("***");
  });
});
