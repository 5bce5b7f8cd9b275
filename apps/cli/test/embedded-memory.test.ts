import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtCli } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The embedded default is what a newcomer runs first, on a laptop: its first run, in a
// new folder, is held to 300 MB resident. The built CLI is run as users run it; a preload
// writes the process's peak RSS (getrusage) when it exits.
const SAMPLES = 20_000;
const LIMIT_MB = 300;
const MAIN = builtCli();
const work = mkdtempSync(join(tmpdir(), "assay-embedded-memory-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the embedded store's first run", () => {
  it(`scores ${SAMPLES} samples in a new folder under ${LIMIT_MB} MB peak RSS`, async () => {
    const dataset = join(work, "data.jsonl");
    const lines: string[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      lines.push(
        JSON.stringify({
          id: `s${i}`,
          question: `Summarize passage ${i}.`,
          answer: "The quick brown fox jumps over the lazy dog near the river bank at dawn.",
          target: ["a quick fox jumped over a lazy dog by the river"],
        }),
      );
    }
    writeFileSync(dataset, `${lines.join("\n")}\n`);
    const spec = join(work, "spec.yaml");
    writeFileSync(spec, "default:\n  scorers: [{ name: f1 }]\n");
    const peakFile = join(work, "peak-rss-kb");
    const preload = join(work, "peak-rss.mjs");
    writeFileSync(
      preload,
      `import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));
`,
    );

    const child = spawn(
      process.execPath,
      ["--import", preload, MAIN, "run", dataset, "--spec", spec, "--db", join(work, "store")],
      {
        cwd: work,
        env: { ...process.env, DATABASE_URL: undefined },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const { code, stderr } = await processOutput(child);
    expect(code, stderr).toBe(ExitCode.ok);
    const peakMb = Number(readFileSync(peakFile, "utf8")) / 1024;
    expect(peakMb).toBeGreaterThan(50); // the figure is real: a Node process with PGlite
    expect(peakMb).toBeLessThan(LIMIT_MB);
  });
});
