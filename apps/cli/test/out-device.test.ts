import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { cliArgs } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import { REPO_ROOT } from "@assay/test-support/run-assay";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// An --out (or a redirected standard output) that is a device: /dev/full refuses every
// write with ENOSPC. A device of the test's own (the same major and minor numbers as
// /dev/full, made with mknod) stands in for it, so that a regression that renames a file
// over the target replaces this one, never the machine's /dev/full.

const work = mkdtempSync(join(tmpdir(), "assay-out-device-"));
const FULL = join(work, "full");
const made = spawnSync("mknod", [FULL, "c", "1", "7"]).status === 0;
const schema = freshSchema();
const db = ["--db", DATABASE_URL, "--db-schema", schema];

beforeAll(async () => {
  if (!made) return;
  const data = join(work, "d.jsonl");
  writeFileSync(data, `${JSON.stringify({ id: "a", question: "q", answer: "x", target: "x" })}\n`);
  expect((await assayInProcess(["migrate", ...db])).code).toBe(ExitCode.ok);
  const run = await assayInProcess(["run", data, "--run-id", "r", "--quiet", ...db]);
  expect(run.code, run.stderr).toBe(ExitCode.ok);
});

afterAll(async () => {
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!made)("a full device as the output", () => {
  it("as --out: the write fails with exit 5 and says so, and the device stays a device", async () => {
    for (const args of [
      ["report", "r", "--out", FULL],
      ["export", "r", "--out", FULL],
    ]) {
      const result = await assayInProcess([...args, ...db]);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(ExitCode.unavailable);
      expect(result.stderr).toBe(`assay: could not write ${FULL}: the disk is full\n`);
      expect(statSync(FULL).isCharacterDevice()).toBe(true);
    }
  });

  it("as --out /dev/null: written to, and left as it is", async () => {
    const result = await assayInProcess(["report", "r", "--out", "/dev/null", ...db]);
    expect(result.code, result.stderr).toBe(ExitCode.ok);
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  it("as standard output: exit 5 and one line, not an unhandled error", async () => {
    for (const args of [
      ["report", "r"],
      ["status", "r"],
    ]) {
      const fd = openSync(FULL, "w");
      try {
        const child = spawn(process.execPath, cliArgs([...args, ...db]), {
          cwd: REPO_ROOT,
          stdio: ["ignore", fd, "pipe"],
        });
        const result = await processOutput(child);
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(ExitCode.unavailable);
        expect(result.stderr).toBe("assay: could not write to standard output: the disk is full\n");
      } finally {
        closeSync(fd);
      }
    }
  });
});
