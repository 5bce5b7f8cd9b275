import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunSpecSchema } from "@assay/core";
import { makeTinyModel } from "@assay/model-tools";
import { runLocal } from "@assay/pipeline";
import { renderReportTable } from "@assay/report";
import { ScorerRegistry } from "@assay/scorers";
import { driverOf } from "@assay/store/driver";
import { reportBundle, runnerOf } from "@assay/store/reports";
import { openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { defineVerifierScorer, loadModel, type VerifierModel } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What `assay report` says the verifier did: every prompt it scored (criteria × variants,
// for each answer and each trajectory prefix) and the forward passes the session ran,
// whether prompts share prefixes or run whole; and each fit record joins its score row.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-effort-"));
let db: TestStore;
let withPast: string;

// Three tasks of two candidates, each a trajectory of three steps. Tasks t0 and t1 have
// only right answers and t2 only wrong ones, so whatever is picked two tasks are solved.
const STEPS = ["Plants breathe.", "They take in a gas.", "It is carbon dioxide."];
const TASKS = [true, true, false].map((label, t) => ({
  id: `t${t}`,
  question: `Which gas do plants take in (${t})?`,
  candidates: [0, 1].map((c) => ({
    answer: [...STEPS.slice(0, 2), `${STEPS[2]} ${c}`].join("\n"),
    steps: [...STEPS.slice(0, 2), `${STEPS[2]} ${c}`],
    label,
  })),
}));
// 2 criteria × 2 variants, for the answer and its three prefixes.
const PROMPTS_PER_SAMPLE = 2 * 2 * (1 + STEPS.length);
const SAMPLES = TASKS.length * 2;
const SOLVED = 2;

beforeAll(async () => {
  withPast = await makeTinyModel(join(work, "tiny-with-past"), {
    head: "distribution",
    withPast: true,
  });
  db = await openTestStore("pglite");
});
afterAll(async () => {
  await db?.dispose();
  rmSync(work, { recursive: true, force: true });
});

async function runWith(model: VerifierModel, runId: string, scorerArgs: Record<string, unknown>) {
  const registry = new ScorerRegistry([defineVerifierScorer({ models: [model] })]);
  const dataset = join(work, `${runId}.jsonl`);
  writeFileSync(dataset, `${TASKS.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const spec = RunSpecSchema.parse({
    default: { scorers: [{ name: "verifier", args: { model: model.name, ...scorerArgs } }] },
    selection: { verifier: "verifier" },
  });
  await db.store.startRun({ id: runId, dataset, spec, transport: "local" });
  await runLocal({ store: db.store, registry, dataset, spec, runId });
  await registry.close();
  return reportBundle(runnerOf(driverOf(db.store)), runId);
}

describe("verifier effort in a report", () => {
  it.each([
    ["with prefix reuse", true],
    ["without prefix reuse", false],
  ])("counts every prompt scored and the passes the session ran, %s", async (_, reuse) => {
    const model = await loadModel(withPast, { reusePrefixes: reuse });
    const runId = `effort-${reuse}`;
    const bundle = await runWith(model, runId, { repetitions: 2 });
    const passesRun = reuse ? model.prefixReuseStats().passes : model.stats().batches;

    const effort = bundle.report.verifierEffort;
    const [row] = effort?.byScorer ?? [];
    expect(effort?.solvedTasks).toBe(SOLVED);
    expect(row?.prompts).toBe(SAMPLES * PROMPTS_PER_SAMPLE);
    // Each pass counts once, however many samples' prompts it carried.
    expect(row?.forwardPasses).toBeCloseTo(passesRun, 6);
    expect(passesRun).toBeGreaterThan(0);
    expect(passesRun).toBeLessThan(SAMPLES * PROMPTS_PER_SAMPLE);
    expect(effort?.promptsPerSolvedTask).toBe((SAMPLES * PROMPTS_PER_SAMPLE) / SOLVED);
    expect(effort?.forwardPassesPerSolvedTask).toBeCloseTo(passesRun / SOLVED, 6);
    expect(renderReportTable(bundle)).toContain(
      `prompts scored per solved task: ${((SAMPLES * PROMPTS_PER_SAMPLE) / SOLVED).toFixed(1)}`,
    );
  });
});

describe("truncation rows", () => {
  it("join their score row on the whole result key for a single-criterion verifier", async () => {
    const probe = await makeTinyModel(join(work, "tiny-probe"), { kind: "decoder" });
    const model = await loadModel(probe);
    await runWith(model, "keys", {});

    const [joined] = (await queryRows(
      db.store,
      `SELECT count(*)::int AS rows, count(s.sample_id)::int AS joined
       FROM truncations t LEFT JOIN scores s
         ON s.run_id = t.run_id AND s.sample_id = t.sample_id AND s.scorer = t.scorer
        AND s.criterion = t.criterion AND s.repetition = t.repetition
       WHERE t.run_id = 'keys'`,
    )) as { rows: number; joined: number }[];
    expect(joined).toEqual({ rows: SAMPLES, joined: SAMPLES });
  });
});
