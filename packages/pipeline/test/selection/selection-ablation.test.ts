import { randomUUID } from "node:crypto";
import type { AblationRow } from "@assay/core";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runReports } from "@assay/store/reports";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selectForRun, selectionAblation } from "../../src/index.js";
import {
  type AblationCandidateSpec,
  type AblationRunSpec,
  PAIR_JUDGE,
  seedAblationRun,
  selectOptionsOf,
} from "./support/ablation-run.js";
import { DRIVERS, type TestStore } from "./support/stores.js";

/** A run of C criteria × K variants; values on a coarse grid so exact ties are common. */
const ablationRun: fc.Arbitrary<AblationRunSpec> = fc
  .record({
    c: fc.integer({ min: 1, max: 3 }),
    k: fc.integer({ min: 1, max: 3 }),
    method: fc.constantFrom("best_of_n" as const, "pivot_tournament" as const),
    pivots: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ c, k, method, pivots }) => {
    const value = fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: 0, max: 4 }).map((v) => v / 4) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
    const candidate: fc.Arbitrary<AblationCandidateSpec> = fc.record(
      {
        label: fc.boolean(),
        values: fc.oneof(
          {
            weight: 9,
            arbitrary: fc.array(fc.array(value, { minLength: k, maxLength: k }), {
              minLength: c,
              maxLength: c,
            }),
          },
          { weight: 1, arbitrary: fc.constant("overflow" as const) },
        ),
      },
      { requiredKeys: ["values"] },
    );
    return fc
      .record({
        criteria: fc.constant(["spec", "output", "errors"].slice(0, c)),
        tasks: fc.dictionary(
          fc.string({ unit: fc.constantFrom("a", "b", "c"), minLength: 1, maxLength: 3 }),
          fc.array(candidate, { minLength: 1, maxLength: 5 }),
          { minKeys: 1, maxKeys: 10 },
        ),
        method: fc.constant(method),
        k: fc.constant(pivots),
      })
      .chain(withJudge);
  });

/**
 * A tournament run with a pairwise judge or without. The judge's strengths are few and
 * small, so it ties often; a null strength stores no judgment for that candidate's pairs,
 * so some tasks have every pair, some a few and some none judged.
 */
function withJudge(run: AblationRunSpec): fc.Arbitrary<AblationRunSpec> {
  if (run.method !== "pivot_tournament") return fc.constant(run);
  const taskIds = Object.keys(run.tasks);
  const strength = fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 4 });
  const strengths = fc.tuple(
    ...taskIds.map((taskId) => {
      const n = run.tasks[taskId]?.length ?? 0;
      return fc.array(strength, { minLength: n, maxLength: n });
    }),
  );
  return fc
    .record({ judged: fc.boolean(), seed: fc.integer({ min: 0, max: 1000 }), strengths })
    .map(({ judged, seed, strengths }) =>
      judged
        ? {
            ...run,
            judge: {
              seed,
              strengths: Object.fromEntries(taskIds.map((id, i) => [id, strengths[i] ?? []])),
            },
          }
        : run,
    );
}

/** Whether the judge compared some pair of every task (all of a task's strengths stored). */
function judgeComparedEveryTask(run: AblationRunSpec): boolean {
  const judge = run.judge;
  if (judge === undefined) return false;
  return Object.entries(run.tasks).every(
    ([taskId, candidates]) =>
      candidates.length > 1 &&
      (judge.strengths[taskId] ?? []).every((strength) => strength !== null),
  );
}

function row(rows: readonly AblationRow[] | undefined, label: string): AblationRow | undefined {
  return rows?.find(
    (r) =>
      (r.kind === "full" && label === "full") ||
      (r.kind === "criterion" && r.criterion === label) ||
      (r.kind === "variants" && label === `k=${r.variants}`),
  );
}

/**
 * Two criteria, one variant: `spec` alone picks the right answer of each task, `output`
 * alone the wrong one, and their mean picks right in T1 and T2 and wrong in T3.
 */
const SPEC_RIGHT_OUTPUT_WRONG: AblationRunSpec["tasks"] = {
  T1: [
    { label: false, values: [[0.2], [0.9]] },
    { label: true, values: [[0.8], [0.4]] },
  ],
  T2: [
    { label: true, values: [[0.9], [0.3]] },
    { label: false, values: [[0.1], [0.95]] },
  ],
  T3: [
    { label: false, values: [[0.3], [0.9]] },
    { label: true, values: [[0.7], [0.2]] },
  ],
};

describe.each(Object.keys(DRIVERS) as (keyof typeof DRIVERS)[])(
  "selection ablation on %s",
  (driver) => {
    let db: TestStore;
    beforeAll(async () => {
      db = await DRIVERS[driver]();
    });
    afterAll(() => db?.dispose());

    it("its full-mean row is the run's own selected accuracy, judged or not; C = K = 1 shows none", async () => {
      await fc.assert(
        fc.asyncProperty(ablationRun, fc.constantFrom(1, 4), async (run, tasksPerPage) => {
          const runId = `run-${randomUUID()}`;
          await seedAblationRun(db.store, runId, run);
          await selectForRun(db.store, runId, {
            ...selectOptionsOf(run),
            fetchRows: tasksPerPage * 3,
          });
          const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
          const ablation = await selectionAblation(db.store, runId, { tasksPerPage });
          const c = run.criteria.length;
          const k = Object.values(run.tasks)
            .flat()
            .find((x) => x.values !== "overflow")?.values[0]?.length;
          if (c === 1 && (k ?? 1) === 1) {
            expect(ablation).toBeUndefined();
            return;
          }
          if (k === undefined) {
            // Every candidate overflowed: no values, nothing to take apart.
            expect(ablation).toBeUndefined();
            return;
          }
          const full = row(ablation?.rows, "full");
          expect(full?.selected).toEqual(report?.accuracy.selected);
          expect(full?.unselected).toBe(report?.accuracy.unselected);
          expect(full?.ties).toBe(report?.ties.continuous.count);
          // Using every variant is the full mean again.
          expect(row(ablation?.rows, `k=${k}`)?.selected ?? full?.selected).toEqual(full?.selected);
          expect(ablation?.rows.length).toBe(1 + (c > 1 ? c : 0) + (k > 1 ? k : 0));
          // Every row picks by the run's method: where the judge compared a pair of every
          // task, no re-averaging of the verifier's values changes a pick.
          expect(ablation?.judge).toBe(run.judge === undefined ? undefined : PAIR_JUDGE);
          if (judgeComparedEveryTask(run)) {
            for (const r of ablation?.rows ?? []) expect(r.selected).toEqual(full?.selected);
          }
        }),
        { numRuns: 40 },
      );
    });

    it("shows one criterion alone selecting better, and another worse, than the mean", async () => {
      // Two criteria, one variant. The mean picks right in T1 and T2 and wrong in T3;
      // `spec` alone picks right in all three, `output` alone wrong in all three.
      const runId = `run-${randomUUID()}`;
      await seedAblationRun(db.store, runId, {
        criteria: ["spec", "output"],
        tasks: {
          ...SPEC_RIGHT_OUTPUT_WRONG,
        },
      });
      await selectForRun(db.store, runId, { verifierScorer: "judge" });
      const ablation = await selectionAblation(db.store, runId);
      expect(ablation?.criteria).toEqual(["spec", "output"]);
      expect(ablation?.variants).toBe(1);
      expect(
        ablation?.rows.map((r) => [r.kind, r.criterion, r.selected.count, r.selected.of]),
      ).toEqual([
        ["full", null, 2, 3],
        ["criterion", "spec", 3, 3],
        ["criterion", "output", 0, 3],
      ]);
    });

    it("under a judged tournament, re-selects with the judge: its run row is the run", async () => {
      // The judge prefers the right answer of T1..T3 (the mean alone picks T3 wrong) and
      // never compared T4's answers, where the verifier decides: the mean and `output`
      // alone pick right, `spec` alone wrong. The run solves all four.
      const run: AblationRunSpec = {
        criteria: ["spec", "output"],
        method: "pivot_tournament",
        k: 2,
        judge: { seed: 3, strengths: { T1: [1, 4], T2: [4, 1], T3: [1, 4] } },
        tasks: {
          ...SPEC_RIGHT_OUTPUT_WRONG,
          T4: [
            { label: true, values: [[0.4], [0.9]] },
            { label: false, values: [[0.8], [0.2]] },
          ],
        },
      };
      const runId = `run-${randomUUID()}`;
      await seedAblationRun(db.store, runId, run);
      await selectForRun(db.store, runId, selectOptionsOf(run));
      const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
      expect(report?.accuracy.selected).toEqual({ count: 4, of: 4, rate: 1 });
      const ablation = await selectionAblation(db.store, runId);
      expect(ablation).toMatchObject({ method: "pivot_tournament", judge: PAIR_JUDGE });
      expect(
        ablation?.rows.map((r) => [r.kind, r.criterion, r.selected.count, r.selected.of]),
      ).toEqual([
        ["full", null, 4, 4],
        ["criterion", "spec", 3, 4],
        ["criterion", "output", 4, 4],
      ]);
    });

    it("shows the first k variants: one variant picks wrong where two pick right", async () => {
      const runId = `run-${randomUUID()}`;
      await seedAblationRun(db.store, runId, {
        criteria: ["default"],
        tasks: {
          T: [
            { label: false, values: [[0.9, 0.1]] },
            { label: true, values: [[0.6, 0.6]] },
          ],
        },
      });
      const ablation = await selectionAblation(db.store, runId);
      expect(ablation?.rows.map((r) => [r.kind, r.variants, r.selected.rate])).toEqual([
        ["full", 2, 1],
        ["variants", 1, 0],
        ["variants", 2, 1],
      ]);
    });

    it("shows none for one criterion and one variant, or without selection", async () => {
      const runId = `run-${randomUUID()}`;
      await seedAblationRun(db.store, runId, {
        criteria: ["default"],
        tasks: {
          T: [
            { label: true, values: [[0.4]] },
            { label: false, values: [[0.6]] },
          ],
        },
      });
      expect(await selectionAblation(db.store, runId)).toBeUndefined();
      const bare = `run-${randomUUID()}`;
      await db.store.startRun({ id: bare, spec: { rules: [] }, transport: "local" });
      expect(await selectionAblation(db.store, bare)).toBeUndefined();
    });
  },
);
