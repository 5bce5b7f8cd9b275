import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, readEnv } from "@assay/core";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { VerifierArgsError } from "@assay/verifier";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { exitCodeOf } from "../src/run-cli.js";

const work = mkdtempSync(join(tmpdir(), "assay-exit-code-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("failures end with the exit code of their category", () => {
  it("a full disk is a failure of the machine (5), wherever the write was", () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      path: "/models/probed/assay.json",
    });
    expect(exitCodeOf(full)).toBe(ExitCode.unavailable);
  });

  it("a server gone mid-command is an outage (5), whichever command it was", () => {
    expect(exitCodeOf(new Error("Connection terminated unexpectedly"))).toBe(ExitCode.unavailable);
    const shutdown = Object.assign(
      new Error("terminating connection due to administrator command"),
      {
        code: "57P01",
      },
    );
    expect(exitCodeOf(shutdown)).toBe(ExitCode.unavailable);
    expect(exitCodeOf(new Error('relation "runs" does not exist'))).toBe(ExitCode.failure);
  });

  it("a verifier argument the model cannot honour is a refused spec (3), not a misconfiguration", () => {
    const error = new VerifierArgsError("Expected `repetitions` to be at most 3, got 4");
    expect(exitCodeOf(error)).toBe(ExitCode.refused);
    expect(error.message).toBe("Expected `repetitions` to be at most 3, got 4");
  });

  it("a bad environment variable is a misconfiguration (5) naming the variable", async () => {
    const parse = () => readEnv({ ASSAY_LOG_LEVEL: "loud" });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/ASSAY_LOG_LEVEL/);

    const dataset = join(work, "one.jsonl");
    writeFileSync(dataset, `${JSON.stringify({ id: "a", question: "q", answer: "x" })}\n`);
    const store = join(work, "store");
    const result = await assayInProcess(["run", dataset, "--db", store], {
      cwd: work,
      env: { ASSAY_LOG_LEVEL: "loud" },
    });
    expect(result.code).toBe(ExitCode.unavailable);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^assay: Environment variable ASSAY_LOG_LEVEL: .*"info"/),
    ]);
    expect(existsSync(store)).toBe(false);
  });
});
