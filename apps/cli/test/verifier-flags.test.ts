import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DEFAULT_BATCH_ROWS, DEFAULT_BATCH_TOKENS } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { VERIFIER_DEFAULTS } from "../src/verifier-flags.js";

// The verifier's batch limits and prefix reuse, set by an operator on `assay run` and
// `assay worker`: flag > ASSAY_* environment > the model's assay.json > the defaults.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-flags-"));
const dataset = join(work, "trajectory.jsonl");
const steps = ["Light scatters off the air.", "Blue light scatters most.", "So the sky is blue."];
let runs = 0;

/** A spec scoring with the model in `dir` (a with-past tiny decoder). */
function specFor(dir: string): string {
  const spec = join(work, `spec-${runs}.yaml`);
  writeFileSync(spec, `default:\n  scorers:\n    - { name: verifier, args: { model: ${dir} } }\n`);
  return spec;
}

/** Scores the trajectory; the stored usage's cached tokens and the settings line printed. */
async function scoreWith(model: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  runs += 1;
  const db = join(work, `store-${runs}`);
  const run = await assayInProcess(
    ["run", dataset, "--spec", specFor(model), "--db", db, "--run-id", "r", ...args],
    { cwd: work, env },
  );
  expect(run.code, run.stderr).toBe(ExitCode.ok);
  const report = await assayInProcess(["report", "r", "--db", db, "--json"], { cwd: work });
  const effort = JSON.parse(report.stdout).report.verifierEffort;
  const line = run.stderr.split("\n").find((l) => l.startsWith("Verifier ")) ?? "";
  return { cached: effort.byScorer[0].cachedInputTokens as number, line };
}

let model: string;
let reuseOffInConfig: string;
beforeAll(async () => {
  writeFileSync(
    dataset,
    `${JSON.stringify({ id: "a", question: "Why is the sky blue?", answer: steps.join("\n"), steps })}\n`,
  );
  model = await makeTinyModel(join(work, "tiny"), { withPast: true });
  reuseOffInConfig = await makeTinyModel(join(work, "tiny-tuned"), { withPast: true });
  const file = join(reuseOffInConfig, "assay.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(
    file,
    JSON.stringify({ ...config, prefix_reuse: false, batch: { max_tokens: 4096, max_rows: 8 } }),
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay run: the verifier's batch limits and prefix reuse", () => {
  it("reuses prefixes by default and stops with --prefix-reuse off", async () => {
    const on = await scoreWith(model, []);
    expect(on.cached).toBeGreaterThan(0);
    expect(on.line).toContain("at most 16384 tokens and 64 rows per forward pass, prefix reuse on");
    const off = await scoreWith(model, ["--prefix-reuse", "off", "--max-batch-rows", "3"]);
    expect(off.cached).toBe(0);
    expect(off.line).toContain(
      "at most 16384 tokens and 3 rows per forward pass, prefix reuse off",
    );
  });

  it("takes assay.json's settings unless a flag or ASSAY_* says otherwise", async () => {
    const fromConfig = await scoreWith(reuseOffInConfig, []);
    expect(fromConfig.cached).toBe(0);
    expect(fromConfig.line).toContain("at most 4096 tokens and 8 rows");
    const fromEnv = await scoreWith(reuseOffInConfig, [], {
      ASSAY_PREFIX_REUSE: "on",
      ASSAY_MAX_BATCH_ROWS: "5",
    });
    expect(fromEnv.cached).toBeGreaterThan(0);
    expect(fromEnv.line).toContain(
      "at most 4096 tokens and 5 rows per forward pass, prefix reuse on",
    );
    const fromFlag = await scoreWith(
      reuseOffInConfig,
      ["--max-batch-tokens", "2048", "--max-batch-rows", "2"],
      {
        ASSAY_MAX_BATCH_ROWS: "5",
      },
    );
    expect(fromFlag.line).toContain(
      "at most 2048 tokens and 2 rows per forward pass, prefix reuse off",
    );
  });
});

describe("the verifier flags' help and errors", () => {
  it("repeat the verifier's own defaults", () => {
    expect(VERIFIER_DEFAULTS).toEqual({
      maxBatchTokens: DEFAULT_BATCH_TOKENS,
      maxBatchRows: DEFAULT_BATCH_ROWS,
      prefixReuse: "on",
    });
  });

  it.each(["run", "worker"])("`assay %s --help` prints each default once", async (command) => {
    const { code, stdout } = await assayInProcess([command, "--help"]);
    expect(code).toBe(ExitCode.ok);
    const help = stdout.replace(/\s+/g, " ");
    for (const [flag, shown] of [
      ["--max-batch-tokens <n>", "(default: 16384)"],
      ["--max-batch-rows <n>", "(default: 64)"],
      ["--prefix-reuse <on|off>", "(choices: on, off; default: on)"],
    ] as const) {
      const text = help.slice(help.indexOf(flag), help.indexOf(" --", help.indexOf(flag) + 3));
      expect(text).toContain(shown);
      expect(text.match(/default/g)).toHaveLength(1);
    }
  });

  it.each([
    [["--prefix-reuse", "maybe"], "argument 'maybe' is invalid. Allowed choices are on, off."],
    [
      ["--max-batch-tokens", "0"],
      'Expected --max-batch-tokens to be an integer from 1 and up, got "0".',
    ],
    [
      ["--max-batch-rows", "1.5"],
      'Expected --max-batch-rows to be an integer from 1 and up, got "1.5".',
    ],
  ])("refuse %j on run and worker", async (flag, message) => {
    for (const args of [
      ["run", "x.jsonl"],
      ["worker", "--pool", "gpu"],
    ]) {
      const { code, stderr } = await assayInProcess([...args, ...flag]);
      expect(code).toBe(ExitCode.usage);
      expect(stderr).toContain(message);
    }
  });

  it("refuses a bad ASSAY_PREFIX_REUSE, naming it", async () => {
    const { code, stderr } = await assayInProcess(["run", dataset, "--spec", specFor(model)], {
      cwd: work,
      env: { ASSAY_PREFIX_REUSE: "yes" },
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain("ASSAY_PREFIX_REUSE");
  });
});
