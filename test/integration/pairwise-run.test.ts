import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunSpecSchema } from "@assay/core";
import { makeTinyModel } from "@assay/model-tools";
import { runLocal } from "@assay/pipeline";
import { renderReportHtml, renderReportTable } from "@assay/report";
import { ScorerRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { reportBundle, runnerOf } from "@assay/store/reports";
import { queryRows } from "@assay/test-support/stores";
import { defineVerifierScorers } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `assay run` with a pairwise judge: its pair jobs are planned with the candidates, scored
// by the same handler as the pointwise verifier, stored, and read back by selection.
const work = mkdtempSync(join(tmpdir(), "assay-pairwise-run-"));
const registry = new ScorerRegistry(defineVerifierScorers());
let store: Store;
let modelDir: string;

beforeAll(async () => {
  modelDir = await makeTinyModel(join(work, "tiny"), { head: "distribution" });
  store = await openStore({ dataDir: join(work, "store") });
});
afterAll(async () => {
  await Promise.all([store?.close(), registry.close()]);
  rmSync(work, { recursive: true, force: true });
});

const TASKS = [
  {
    id: "t1",
    question: "Capital of France?",
    candidates: ["Lyon", "Paris", "Nice", "Marseille"],
  },
  { id: "t2", question: "2 + 2?", candidates: ["4", "5", "22", "four"] },
  { id: "t3", question: "Largest ocean?", candidates: ["Arctic", "Pacific", "Indian", "Atlantic"] },
  {
    id: "t4",
    question: "Boiling point of water at sea level?",
    candidates: ["100 °C", "90 °C", "212 °C", "50 °C"],
  },
  {
    id: "t5",
    question: "Which gas do plants take in?",
    candidates: ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"],
  },
  {
    id: "t6",
    question: "Author of Hamlet?",
    candidates: ["Marlowe", "Shakespeare", "Jonson", "Kyd"],
  },
];

describe("a spec with a pairwise judge", () => {
  it("needs the pivot tournament and a judge the registry knows, with valid args", () => {
    const parsed = RunSpecSchema.safeParse({
      default: { scorers: [{ name: "verifier", args: { model: "m" } }] },
      selection: { verifier: "verifier", judge: { name: "pairwise", args: { model: "m" } } },
    });
    expect(parsed.error?.message).toMatch(/a pairwise judge needs `method: pivot_tournament`/);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: "m" } }] },
      selection: {
        verifier: "verifier",
        method: "pivot_tournament",
        judge: { name: "pairwise", args: { model: "m", overflow: "keep-answer-tail" } },
      },
    });
    expect(() => registry.validateSpec(spec, "spec.yaml")).toThrow(/selection judge \(pairwise\)/);
  });
});

describe("a local run with a pairwise judge", () => {
  it("plans k·N − k(k+1)/2 pairs × 2 orders per task and selects from their judgments", async () => {
    const dataset = join(work, "candidates.jsonl");
    const lines = TASKS.map((task) => ({
      id: task.id,
      question: task.question,
      candidates: task.candidates.map((answer, i) => ({ answer, label: i === 1 })),
    }));
    writeFileSync(dataset, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "verifier", args: { model: modelDir } }] },
      selection: {
        verifier: "verifier",
        method: "pivot_tournament",
        k: 2,
        seed: 3,
        judge: { name: "pairwise", key: "judge", args: { model: modelDir } },
      },
    });
    await store.startRun({ id: "pw", dataset, spec, transport: "local" });

    const outcome = await runLocal({ store, registry, dataset, spec, runId: "pw" });

    // 4 candidates, 2 pivots: 2·4 − 3 = 5 pairs, each in both orders.
    const pairRows = await queryRows(
      store,
      "SELECT count(*)::int AS n FROM scores WHERE run_id = 'pw' AND scorer = 'judge'",
    );
    expect(pairRows).toEqual([{ n: TASKS.length * 10 }]);
    const selections = (await queryRows(
      store,
      "SELECT task_id, selected_index, detail FROM selections WHERE run_id = 'pw' ORDER BY task_id",
    )) as { task_id: string; selected_index: number; detail: Record<string, unknown> }[];
    expect(outcome.selection?.tasks).toBe(TASKS.length);
    for (const { selected_index, detail } of selections) {
      const evidence = detail.pairwise as {
        seed: number;
        pivots: number[];
        pairs: number;
        judgedPairs: number;
        flippedPairs: number;
        strengths: Record<string, number>;
        matrix: { indices: number[]; probabilities: (number | null)[][] };
      };
      expect(evidence).toMatchObject({ seed: 3, pairs: 5, judgedPairs: 5 });
      expect(evidence.pivots).toHaveLength(2);
      expect(evidence.flippedPairs).toBeLessThanOrEqual(5);
      // The pick is the strongest candidate of the fit to the stored matrix.
      const strongest = Object.entries(evidence.strengths).sort((x, y) => y[1] - x[1])[0];
      expect(selected_index).toBe(Number(strongest?.[0]));
      // Both orders averaged: the matrix is complementary across the diagonal.
      const [p, q] = evidence.pivots as [number, number];
      const row = evidence.matrix.probabilities;
      expect((row[p]?.[q] ?? 0) + (row[q]?.[p] ?? 0)).toBeCloseTo(1, 12);
    }
    // The tiny model's judge and its pointwise head disagree on some tasks: the tournament
    // is no longer best-of-N in disguise. Which tasks follows from the seeded weights.
    const differing = selections
      .filter(
        (s) => (s.detail.pointwise as { selectedIndex: number }).selectedIndex !== s.selected_index,
      )
      .map((s) => s.task_id);
    expect(differing).toEqual(["t3", "t4", "t5"]);

    // The report puts both accuracies side by side over the same tasks, with the bias.
    const bundle = await reportBundle(runnerOf(driverOf(store)), "pw");
    const pointwiseRight = selections.filter(
      (s) => (s.detail.pointwise as { selectedCorrect: boolean }).selectedCorrect,
    ).length;
    const pairwiseRight = selections.filter((s) => s.selected_index === 1).length;
    const flipped = selections.reduce(
      (sum, s) => sum + (s.detail.pairwise as { flippedPairs: number }).flippedPairs,
      0,
    );
    expect(bundle.report.pairwise).toEqual({
      tasks: TASKS.length,
      pointwiseSelected: expect.objectContaining({ count: pointwiseRight, of: TASKS.length }),
      pairwiseSelected: expect.objectContaining({ count: pairwiseRight, of: TASKS.length }),
      positionBias: expect.objectContaining({ count: flipped, of: TASKS.length * 5 }),
    });
    // Every prompt was scored: 4 pointwise candidates × 2 criteria, plus 10 pair prompts;
    // batched, they took fewer passes than prompts.
    const effort = bundle.report.verifierEffort;
    expect(effort?.byScorer.map((r) => [r.scorer, r.prompts])).toEqual([
      ["judge", TASKS.length * 10],
      ["verifier", TASKS.length * 4 * 2],
    ]);
    for (const row of effort?.byScorer ?? []) {
      expect(row.forwardPasses).toBeGreaterThan(0);
      expect(row.forwardPasses).toBeLessThanOrEqual(row.prompts ?? 0);
    }
    expect(effort?.solvedTasks).toBe(pairwiseRight);
    expect(effort?.cachedShare.count).toBe(0);
    const table = renderReportTable(bundle);
    expect(table).toContain("Pointwise vs pairwise selection");
    expect(table).toContain("forward passes per solved task");
    const html = renderReportHtml(bundle);
    expect(html).toContain('data-table="pairwise"');
    expect(html).toContain('data-figure="passes-per-solved"');

    // Running the same command again resumes: every pair result is found, none re-judged.
    const again = await runLocal({ store, registry, dataset, spec, runId: "pw" });
    expect(again.produced.planned).toBe(TASKS.length * (4 + 10));
    expect(again.produced.enqueued).toBe(0);
    expect(again.complete).toBe(true);
  });
});
