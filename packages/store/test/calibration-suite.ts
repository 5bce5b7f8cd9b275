import { auroc, brierScore } from "@assay/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf, runReports } from "../src/reports/index.js";
import type { Store } from "../src/store.js";
import { freshRunId, sample, scored, unscored } from "./fixtures.js";
import type { StoreFactory } from "./store-suite.js";

/** Verifier values and labels of the reported run, by sample id. */
const POINTS: Record<string, [number, boolean]> = {
  a: [0.9, true],
  b: [0.8, true],
  c: [0.8, false],
  d: [0.3, false],
  e: [0.1, false],
  f: [0.6, true],
};

/** The run report's calibration figures, on every driver. */
export function registerCalibrationSuite(kind: Store["kind"], factory: StoreFactory): void {
  describe(`calibration in run reports (${kind})`, () => {
    let store: Store;
    const runId = freshRunId();
    const unlabelledRun = freshRunId();

    beforeAll(async () => {
      store = await factory.open({ migrate: true });
      for (const id of [runId, unlabelledRun])
        await store.startRun({ id, spec: {}, transport: "local" });
      await store.insertSamples(runId, [
        ...Object.entries(POINTS).map(([id, [, label]]) => sample(id, { label })),
        sample("nolabel"),
        sample("skipped", { label: true }),
      ]);
      await store.insertSamples(unlabelledRun, [sample("a")]);
      const verifier = (run: string, id: string, value: number) => ({
        ...scored(run, id, "judge", value),
        detail: { head: "probe" },
      });
      await store.writeScores([
        ...Object.entries(POINTS).map(([id, [value]]) => verifier(runId, id, value)),
        // A deterministic scorer (no `head` in detail), an unlabelled answer, an unscored one.
        ...Object.keys(POINTS).map((id) => scored(runId, id, "exact", 1)),
        verifier(runId, "nolabel", 0.99),
        unscored(runId, "skipped", "judge", "overflow"),
        verifier(unlabelledRun, "a", 0.5),
      ]);
    });

    afterAll(async () => {
      await store?.close();
      await factory.cleanup();
    });

    it("compares a verifier's scores on its own family's answers with other generators'", async () => {
      const run = freshRunId();
      await store.startRun({ id: run, spec: {}, transport: "local" });
      const gen = (model: string) => ({ model, input_tokens: 1, output_tokens: 1 });
      // Qwen answers get +0.2 at equal correctness; the unlabelled one is left out.
      const rows: [string, string, boolean | undefined, number][] = [
        ["q1", "Qwen3-8B", true, 0.9],
        ["q2", "qwen2.5", false, 0.6],
        ["l1", "llama-3", true, 0.7],
        ["l2", "llama-3", false, 0.4],
        ["l3", "llama-3", undefined, 0.0],
      ];
      await store.insertSamples(
        run,
        rows.map(([id, model, label]) =>
          sample(id, { generator: gen(model), ...(label !== undefined && { label }) }),
        ),
      );
      await store.writeScores(
        rows.map(([id, , , value]) => ({
          ...scored(run, id, "judge", value),
          detail: { head: "probe", family: "qwen" },
        })),
      );
      const [report] = await runReports(runnerOf(driverOf(store)), [run]);
      const [check] = report?.selfPreference ?? [];
      expect(report?.selfPreference).toHaveLength(1);
      expect(check?.family).toBe("qwen");
      expect(check?.sameFamily.correct).toEqual({ answers: 1, mean: 0.9 });
      expect(check?.otherFamily.incorrect).toEqual({ answers: 1, mean: 0.4 });
      expect(check?.gap).toBeCloseTo(0.2, 12);
      // One answer per group: nothing to resample, and far too few answers to warn.
      expect(check?.low).toBeCloseTo(0.2, 12);
      expect(check?.high).toBeCloseTo(0.2, 12);
      expect(check?.enoughAnswers).toBe(false);
      expect(check?.warning).toBe(false);
    });

    it("measures each verifier scorer on its scored, labelled answers only", async () => {
      const [report, unlabelled] = await runReports(runnerOf(driverOf(store)), [
        runId,
        unlabelledRun,
      ]);
      const points = Object.values(POINTS).map(([score, label]) => ({ score, label }));
      expect(report?.calibration?.map((c) => c.scorer)).toEqual(["judge"]);
      const summary = report?.calibration?.[0]?.summary;
      expect(summary?.count).toBe(6);
      expect(summary?.positives).toBe(3);
      // Of 9 positive–negative pairs: 7 ordered right, 0.6 below 0.8 wrong, the 0.8 tie half.
      expect(summary?.auroc).toBeCloseTo(7.5 / 9, 12);
      expect(summary?.auroc).toBe(auroc(points));
      expect(summary?.brier).toBeCloseTo(brierScore(points) ?? Number.NaN, 12);
      expect(summary?.bins.reduce((n, b) => n + b.count, 0)).toBe(6);
      expect(unlabelled?.calibration).toEqual([]);
    });
  });
}
