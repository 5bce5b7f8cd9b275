import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The tiny distribution model has two criteria (correctness, completeness) and three
// prompt variants; its scores mean nothing, but the stored values are the real ones.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-spec-"));
const dataset = join(work, "tasks.jsonl");
let model: string;

function spec(name: string, args: Record<string, unknown>, selection = false): string {
  const file = join(work, `${name}.yaml`);
  const lines = [
    "default:",
    "  scorers:",
    `    - { name: verifier, args: ${JSON.stringify({ model, ...args })} }`,
    ...(selection ? ["selection: { verifier: verifier }"] : []),
  ];
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** `assay run` of the tasks with a spec, into a store folder. */
function runArgs(specFile: string, db: string, runId: string): string[] {
  return ["run", dataset, "--spec", specFile, "--db", db, "--run-id", runId];
}

beforeAll(async () => {
  model = await makeTinyModel(join(work, "tiny"), { kind: "decoder", head: "distribution" });
  const tasks = Array.from({ length: 6 }, (_, t) => ({
    id: `t${t}`,
    question: `What is ${t} + ${t}?`,
    candidates: [0, 1, 2].map((c) => ({ answer: `${t + t + c - 1}`, label: c === 1 })),
  }));
  writeFileSync(dataset, `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("verifier args that cannot work with the model", () => {
  it.each([
    [
      "score tokens the tokenizer splits",
      { head: { scale: Array.from({ length: 20 }, (_, i) => String(i + 1)) } },
      /head\.scale: scale level 10 "10" is 2 tokens .*every level must be one token, e\.g\. the letters A\.\.T/,
    ],
    [
      "a probe setting on a distribution head",
      { head: { bias: 0.5 } },
      /`head\.bias` and `head\.sigmoid` apply to a probe head; this model's head is a distribution: remove them/,
    ],
    [
      "more repetitions than prompt variants",
      { repetitions: 4 },
      /`repetitions` to be at most 3 \(the number of prompt variants\), got 4: lower it or add `variants`/,
    ],
  ])("refuse the run with %s before anything is stored (exit 3)", async (name, args, message) => {
    const file = spec(name.replaceAll(" ", "-"), args);
    const db = join(work, `store-${name.replaceAll(" ", "-")}`);
    const run = await assayInProcess(runArgs(file, db, "bad"));
    expect(run.code, run.stderr).toBe(ExitCode.refused);
    // One line naming the spec file, the scorer and the argument, and how to fix it.
    expect(run.stderr).toContain(`${file}: default scorer #1 (verifier): `);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(db), "the store was never opened").toBe(false);
  });

  it("refuse `assay produce` the same way, before Redis or Postgres is reached", async () => {
    const file = spec("produce", { repetitions: 4 });
    const produce = await assayInProcess(["produce", dataset, "--spec", file], {
      env: { DATABASE_URL: "postgres://127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1" },
    });
    expect(produce.code, produce.stderr).toBe(ExitCode.refused);
    expect(produce.stderr).toMatch(/default scorer #1 \(verifier\): Expected `repetitions`/);
  });
});

describe("selection ablation by criterion and variant", () => {
  it("reports each criterion alone and the first k variants; the full mean is the run's own", async () => {
    const db = join(work, "store-ablation");
    const file = spec("ablation", { repetitions: 2 }, true);
    const run = await assayInProcess(runArgs(file, db, "ck"));
    expect(run.code, run.stderr).toBe(ExitCode.ok);

    const json = await assayInProcess(["report", "ck", "--db", db, "--format", "json"]);
    expect(json.code, json.stderr).toBe(ExitCode.ok);
    const { report, ablation } = JSON.parse(json.stdout);
    expect(ablation.criteria).toEqual(["correctness", "completeness"]);
    expect(ablation.variants).toBe(2);
    expect(ablation.rows.map((r: { kind: string }) => r.kind)).toEqual([
      "full",
      "criterion",
      "criterion",
      "variants",
      "variants",
    ]);
    expect(ablation.rows[0].selected).toEqual(report.accuracy.selected);
    expect(report.accuracy.selected.of).toBe(6);

    const table = await assayInProcess(["report", "ck", "--db", db]);
    expect(table.stdout).toMatch(
      /Selection ablation \(verifier, best_of_n; 2 criteria × 2 variants\)/,
    );
    expect(table.stdout).toMatch(/criterion completeness alone/);

    const single = spec("single", { criteria: ["correctness"] }, true);
    expect((await assayInProcess(runArgs(single, db, "c1"))).code).toBe(0);
    const plain = await assayInProcess(["report", "c1", "--db", db, "--format", "json"]);
    expect(JSON.parse(plain.stdout).ablation).toBeNull();
  });
});
