import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { earlyStops, runnerOf } from "../src/reports/index.js";
import type { Store } from "../src/store.js";
import { freshRunId, sample, scored } from "./fixtures.js";
import type { StoreFactory } from "./store-suite.js";

/** Hand-made progress curves, by sample id; the comment says what M=3 makes of each. */
const CURVES: Record<string, (number | null)[]> = {
  exact: [0.2, 0.9, 0.8, 0.7, 0.6, 0.65], // exactly 3 falls from step 1
  short: [0.9, 0.8, 0.7, 0.75], // M−1 = 2 falls: not a candidate
  rise: [0.9, 0.8, 0.85, 0.7, 0.6], // 1 fall, a rise, 2 falls: not a candidate
  plateau: [0.9, 0.8, 0.8, 0.7, 0.6], // an equal step ends a fall
  gap: [0.9, 0.8, null, 0.7, 0.6, 0.5], // an unscored step ends a fall
  long: [1, 0.8, 0.6, 0.4, 0.2, 0.1], // 5 falls from step 0
  second: [0.5, 0.4, 0.7, 0.5, 0.4, 0.3], // 1 fall, then 3 from step 2
  drift: [0.5712, 0.5711, 0.571, 0.5709, 0.5708], // drops of 1e-4: below the default minimum
};

/** The early-stop query, on every driver. */
export function registerEarlyStopSuite(kind: Store["kind"], factory: StoreFactory): void {
  describe(`early-stop candidates (${kind})`, () => {
    let store: Store;
    const runId = freshRunId();

    beforeAll(async () => {
      store = await factory.open({ migrate: true });
      const other = freshRunId();
      for (const id of [runId, other]) await store.startRun({ id, spec: {}, transport: "local" });
      const ids = [...Object.keys(CURVES), "plain"];
      await store.insertSamples(
        runId,
        ids.map((id) => sample(id, { taskId: `task-${id}` })),
      );
      await store.insertSamples(other, [sample("long")]);
      await store.writeScores([
        ...Object.entries(CURVES).map(([id, progress]) => ({
          ...scored(runId, id, "judge", progress.at(-1) ?? 0),
          detail: { head: "probe", progress },
        })),
        scored(runId, "plain", "judge", 0.5),
        { ...scored(other, "long", "judge", 0.1), detail: { progress: CURVES.long } },
      ]);
    });

    afterAll(async () => {
      await store?.close();
      await factory.cleanup();
    });

    it("lists curves that fell M steps in a row, longest fall and largest drop first", async () => {
      const report = await earlyStops(runnerOf(store.driver), runId);
      expect(report.fallSteps).toBe(3);
      expect(report.minFall).toBe(0.01);
      expect(report.total).toBe(3);
      expect(report.candidates.map((c) => [c.sampleId, c.fromStep, c.falls])).toEqual([
        ["long", 0, 5],
        ["second", 2, 3],
        ["exact", 1, 3],
      ]);
      expect(report.candidates[2]).toEqual({
        runId,
        sampleId: "exact",
        taskId: "task-exact",
        scorer: "judge",
        fromStep: 1,
        falls: 3,
        values: [0.9, 0.8, 0.7, 0.6],
        progress: CURVES.exact,
      });
    });

    it("counts a step as a fall only when it drops by at least the minimum", async () => {
      const runner = runnerOf(store.driver);
      const falls = async (minFall: number) => {
        const report = await earlyStops(runner, runId, { minFall });
        expect(report.minFall).toBe(minFall);
        return Object.fromEntries(
          report.candidates.map((c) => [c.sampleId, [c.fromStep, c.falls]]),
        );
      };
      // Any drop: the drift is a 4-step fall.
      expect(await falls(0)).toEqual({
        long: [0, 5],
        drift: [0, 4],
        second: [2, 3],
        exact: [1, 3],
      });
      // Drops of exactly 0.1 count (0.9 − 0.8 is 0.0999… in floating point).
      expect(await falls(0.1)).toEqual({ long: [0, 5], second: [2, 3], exact: [1, 3] });
      // Only long's first four steps (0.2 each) drop by 0.15.
      expect(await falls(0.15)).toEqual({ long: [0, 4] });
      await expect(earlyStops(runner, runId, { minFall: -0.1 })).rejects.toThrow(
        /`minFall` to be a number from 0 and up, got -0.1/,
      );
    });

    it("takes M from the caller and limits the list, not the total", async () => {
      const two = await earlyStops(runnerOf(store.driver), runId, { fallSteps: 2 });
      expect(Object.fromEntries(two.candidates.map((c) => [c.sampleId, c.fromStep]))).toEqual({
        long: 0,
        second: 2,
        exact: 1,
        short: 0,
        rise: 2,
        plateau: 2,
        gap: 3,
      });
      const one = await earlyStops(runnerOf(store.driver), runId, { limit: 1 });
      expect(one.total).toBe(3);
      expect(one.candidates.map((c) => c.sampleId)).toEqual(["long"]);
      await expect(earlyStops(runnerOf(store.driver), runId, { fallSteps: 0 })).rejects.toThrow(
        /from 1 and up, got 0/,
      );
    });
  });
}
