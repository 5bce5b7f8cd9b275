import { ExitCode } from "@assay/cli";
import { describe, expect, it } from "vitest";
import { assayInProcess } from "./assay-in-process.js";

// Most CLI tests trust this helper to give what a process of its own would: if it let a
// command's exit code, environment or streams reach the next command, they would test
// each other instead of the CLI.
describe("a command run in the test's process", () => {
  it("gives its exit code and output, and leaves the process as it found it", async () => {
    const stdout = process.stdout;
    const cwd = process.cwd();
    const logLevel = process.env.ASSAY_LOG_LEVEL;
    process.env.ASSAY_IN_PROCESS_PROBE = "kept";
    try {
      const refused = await assayInProcess(["report", "r", "--fall-steps", "0"], {
        cwd: "/",
        env: { ASSAY_IN_PROCESS_PROBE: undefined, ASSAY_LOG_LEVEL: "warn" },
      });
      expect(refused.code).toBe(ExitCode.usage);
      expect(refused.stderr).toMatch(/--fall-steps to be an integer from 1 and up, got "0"/);
      expect(refused.stdout).toBe("");

      expect(process.exitCode).toBeUndefined();
      expect(process.stdout).toBe(stdout);
      expect(process.cwd()).toBe(cwd);
      expect(process.env.ASSAY_IN_PROCESS_PROBE).toBe("kept");
      expect(process.env.ASSAY_LOG_LEVEL).toBe(logLevel);

      // The refusal's exit code is not the next command's.
      const help = await assayInProcess(["--help"]);
      expect(help.code).toBe(ExitCode.ok);
      expect(help.stdout).toMatch(/^Usage: assay/);
    } finally {
      delete process.env.ASSAY_IN_PROCESS_PROBE;
    }
  });

  it("takes commands started together one at a time, each with its own output", async () => {
    const stdout = process.stdout;
    const [report, exported] = await Promise.all([
      assayInProcess(["report", "--help"]),
      assayInProcess(["export", "--help"]),
    ]);
    expect(report.stdout).toMatch(/^Usage: assay report/);
    expect(report.stdout).not.toMatch(/Usage: assay export/);
    expect(exported.stdout).toMatch(/^Usage: assay export/);
    expect(process.stdout).toBe(stdout);
  });
});
