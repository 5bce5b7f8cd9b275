import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { builtCli } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import { propertyRuns } from "@assay/test-support/property-runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A finished run exits 0 every time. The verifier's threads shut down after the store
// closes; when one was not held the process could end first with code 13 (about one run
// in ten), so a script checking $? saw a failure that did not happen. The built CLI is
// run, as users run it (and the quickest to start): one tiny model, a one-line dataset
// and one store folder serve every run. The release that closes the race is checked
// deterministically by packages/verifier/test/session-release.test.ts (an unheld release
// exits 13 there every time); these runs check the CLI as a whole, a few per suite
// (ASSAY_PROPERTY_SCALE=4 runs the twenty that once caught the race nine times in ten).
const RUNS = propertyRuns(5);
const MAIN = builtCli();
const work = mkdtempSync(join(tmpdir(), "assay-verifier-exit-"));
const dataset = join(work, "one.jsonl");
const spec = join(work, "spec.yaml");
const store = join(work, "store");

beforeAll(async () => {
  const model = await makeTinyModel(join(work, "tiny"), { kind: "decoder" });
  writeFileSync(dataset, `${JSON.stringify({ id: "a", question: "Why?", answer: "So." })}\n`);
  writeFileSync(
    spec,
    `default:\n  scorers:\n    - { name: verifier, args: { model: ${JSON.stringify(model)} } }\n`,
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay run with the verifier", () => {
  it(`exits 0 after a finished run, ${RUNS} times out of ${RUNS}`, {
    timeout: 900_000,
  }, async () => {
    const codes: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const child = spawn(
        process.execPath,
        [MAIN, "run", dataset, "--spec", spec, "--db", store, "--run-id", `r${i}`, "--json"],
        {
          cwd: work,
          env: { ...process.env, DATABASE_URL: undefined },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const { code, stdout, stderr } = await processOutput(child);
      expect(JSON.parse(stdout).results, stderr).toBe(1);
      codes.push(code);
    }
    expect(codes).toEqual(Array(RUNS).fill(0));
  });
});
