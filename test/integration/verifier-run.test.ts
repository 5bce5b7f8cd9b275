import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunSpecSchema } from "@assay/core";
import { makeTinyModel } from "@assay/model-tools";
import { runLocal } from "@assay/pipeline";
import { ScorerRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { reportBundle, runnerOf, usageTotals } from "@assay/store/reports";
import { queryRows } from "@assay/test-support/stores";
import { defineVerifierScorer } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `assay run` with the verifier: the same handler stores each score with its truncation
// record and its usage row, and the summary counts the cut inputs.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-run-"));
const registry = new ScorerRegistry([defineVerifierScorer()]);
let store: Store;
let modelDir: string;

beforeAll(async () => {
  modelDir = await makeTinyModel(join(work, "tiny"), { kind: "decoder" });
  store = await openStore({ dataDir: join(work, "store") });
});
afterAll(async () => {
  await Promise.all([store?.close(), registry.close()]);
  rmSync(work, { recursive: true, force: true });
});

describe("a local run with the verifier", () => {
  it("stores scores, one truncation row per call, verifier and generator usage", async () => {
    const dataset = join(work, "data.jsonl");
    const long = "A passage about enzymes and how they speed up reactions. ".repeat(400);
    const lines = [
      { id: "short", question: "Which gas do plants take in?", answer: "Carbon dioxide." },
      { id: "long", question: `${long} Which gas do plants take in?`, answer: "Oxygen." },
      { id: "overflow", question: "q?", answer: "word ".repeat(3000) },
    ].map((line) => ({
      ...line,
      generator: { model: "gen-a", input_tokens: 50, output_tokens: 10 },
    }));
    writeFileSync(dataset, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: modelDir } }] },
    });
    await store.startRun({ id: "v", dataset, spec, transport: "local" });

    const outcome = await runLocal({ store, registry, dataset, spec, runId: "v" });

    expect(outcome.summary.results).toBe(3);
    expect(outcome.summary.groups[0]).toMatchObject({
      scorer: "verifier",
      scored: 2,
      unscored: { overflow: 1 },
    });
    expect(outcome.summary.truncation).toEqual({ calls: 3, truncated: 1, refused: 1 });
    const truncations = await rows(
      "SELECT sample_id, slot, policy, dropped_tokens > 0 AS cut FROM truncations WHERE run_id = 'v' ORDER BY sample_id",
    );
    expect(truncations).toEqual([
      { sample_id: "long", slot: "question", policy: "error", cut: true },
      { sample_id: "overflow", slot: expect.any(String), policy: "error", cut: true },
      { sample_id: "short", slot: "", policy: "error", cut: false },
    ]);
    const usage = await rows(
      "SELECT role, count(*)::int AS n, min(input_tokens) > 0 AS counted FROM usage WHERE run_id = 'v' GROUP BY role ORDER BY role",
    );
    expect(usage).toEqual([
      { role: "generator", n: 3, counted: true },
      { role: "verifier", n: 3, counted: expect.any(Boolean) },
    ]);
  });
});

describe("best-of-N selection after a local run", () => {
  it("selects one candidate per task and reports pass@1, selected and oracle accuracy", async () => {
    const dataset = join(work, "candidates.jsonl");
    const tasks = [
      {
        id: "t1",
        question: "Capital of France?",
        candidates: [
          { answer: "Lyon", label: false },
          { answer: "Paris", label: true },
          { answer: "Nice", label: false },
        ],
      },
      {
        id: "t2",
        question: "2 + 2?",
        candidates: [
          { answer: "4", label: true },
          { answer: "5", label: false },
        ],
      },
      {
        id: "t3",
        question: "Largest ocean?",
        candidates: [
          { answer: "Arctic", label: false },
          { answer: "Indian", label: false },
        ],
      },
    ];
    writeFileSync(dataset, `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: modelDir } }] },
      selection: { verifier: "verifier" },
    });
    await store.startRun({ id: "sel", dataset, spec, transport: "local" });

    const outcome = await runLocal({ store, registry, dataset, spec, runId: "sel" });

    const selection = outcome.selection;
    expect(selection?.tasks).toBe(3);
    // Labels decide correctness: t1 and t2 have a right candidate, t3 has none.
    expect(selection?.oracle).toEqual({ count: 2, of: 3, rate: 2 / 3 });
    expect(selection?.pass1).toEqual({ count: 1, of: 3, rate: 1 / 3 });
    expect(selection?.selected.of).toBe(3);
    const stored = await rows(
      "SELECT task_id, selected_index IS NOT NULL AS picked FROM selections WHERE run_id = 'sel' ORDER BY task_id",
    );
    expect(stored).toEqual([
      { task_id: "t1", picked: true },
      { task_id: "t2", picked: true },
      { task_id: "t3", picked: true },
    ]);
  });
});

describe("trajectories in a local run", () => {
  it("stores a progress curve per trajectory and the report finds its falls", async () => {
    const dataset = join(work, "steps.jsonl");
    const steps = [
      "Plants breathe.",
      "They take in a gas.",
      "It is not oxygen.",
      "Carbon dioxide.",
    ];
    const lines = [
      { id: "traj", question: "Which gas do plants take in?", answer: steps.join("\n"), steps },
      { id: "flat", question: "Which gas do plants take in?", answer: "Carbon dioxide." },
    ];
    writeFileSync(dataset, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: modelDir } }] },
    });
    await store.startRun({ id: "steps", dataset, spec, transport: "local" });
    await runLocal({ store, registry, dataset, spec, runId: "steps" });

    const [traj] = (await rows(
      "SELECT detail->'progress' AS progress FROM scores WHERE run_id = 'steps' AND sample_id = 'traj'",
    )) as { progress: number[] }[];
    expect(traj?.progress).toHaveLength(4);
    expect(
      await rows("SELECT 1 FROM scores WHERE run_id = 'steps' AND detail ? 'progress'"),
    ).toHaveLength(1);
    // The SQL finds the same first fall as a plain scan of the stored curve (any drop).
    const curve = traj?.progress ?? [];
    const firstFall = curve.findIndex((v, i) => i > 0 && v < (curve[i - 1] ?? Number.NaN));
    const { earlyStops: stops } = await reportBundle(runnerOf(driverOf(store)), "steps", {
      fallSteps: 1,
      minFall: 0,
    });
    expect(stops?.total).toBe(firstFall === -1 ? 0 : 1);
    if (firstFall !== -1)
      expect(stops?.candidates[0]).toMatchObject({ sampleId: "traj", fromStep: firstFall - 1 });
  });
});

describe("prefix reuse in a local run", () => {
  it("stores the verifier's reused prompt tokens as cached input tokens in the usage totals", async () => {
    const withPast = await makeTinyModel(join(work, "tiny-with-past"), {
      head: "distribution",
      withPast: true,
    });
    const dataset = join(work, "reuse.jsonl");
    const steps = ["Plants breathe.", "They take in a gas.", "It is carbon dioxide."];
    const line = { id: "traj", question: "Which gas?", answer: steps.join("\n"), steps };
    writeFileSync(dataset, `${JSON.stringify(line)}\n`);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: withPast, repetitions: 2 } }] },
    });
    await store.startRun({ id: "reuse", dataset, spec, transport: "local" });
    await runLocal({ store, registry, dataset, spec, runId: "reuse" });

    const totals = (await usageTotals(runnerOf(driverOf(store)), ["reuse"])).get("reuse") ?? [];
    const verifier = totals.find((t) => t.role === "verifier");
    // 2 criteria × 2 variants over the answer and 3 prefixes: most tokens are shared.
    expect(verifier?.cachedInputTokens).toBeGreaterThan(verifier?.inputTokens ?? 0);
    expect(verifier?.inputTokens).toBeGreaterThan(0);
  });
});

function rows(sql: string): Promise<unknown[]> {
  return queryRows(store, sql);
}
