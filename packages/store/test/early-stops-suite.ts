import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
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

interface Expected {
  sampleId: string;
  scorer: string;
  fromStep: number;
  falls: number;
  drop: number;
}

/** The rule, step by step: a curve's first run of at least M falls of at least `minFall`. */
function firstStreak(
  progress: (number | null)[],
  fallSteps: number,
  minFall: number,
): { fromStep: number; falls: number; drop: number } | undefined {
  let start = -1;
  for (let i = 1; i <= progress.length; i += 1) {
    const [before, value] = [progress[i - 1], progress[i]];
    const falls =
      typeof before === "number" &&
      typeof value === "number" &&
      value < before &&
      before - value >= minFall - 1e-9;
    if (falls && start < 0) start = i - 1;
    if (!falls && start >= 0) {
      const count = i - 1 - start;
      if (count >= fallSteps) {
        return {
          fromStep: start,
          falls: count,
          drop: (progress[start] as number) - (progress[i - 1] as number),
        };
      }
      start = -1;
    }
  }
  return undefined;
}

const point = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 10 }).map((v) => v / 10),
  fc.double({ min: 0, max: 1, noNaN: true }),
);
// Falling curves (an unscored prefix here and there) next to random ones, so streaks are common.
const curve = fc.oneof(
  fc.array(point, { maxLength: 9 }),
  fc
    .array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 9 })
    .map((values) => values.sort((a, b) => b - a).map((v) => v / 100)),
);

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
      const report = await earlyStops(runnerOf(driverOf(store)), runId);
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
      const runner = runnerOf(driverOf(store));
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
      const two = await earlyStops(runnerOf(driverOf(store)), runId, { fallSteps: 2 });
      expect(Object.fromEntries(two.candidates.map((c) => [c.sampleId, c.fromStep]))).toEqual({
        long: 0,
        second: 2,
        exact: 1,
        short: 0,
        rise: 2,
        plateau: 2,
        gap: 3,
      });
      const one = await earlyStops(runnerOf(driverOf(store)), runId, { limit: 1 });
      expect(one.total).toBe(3);
      expect(one.candidates.map((c) => c.sampleId)).toEqual(["long"]);
      await expect(earlyStops(runnerOf(driverOf(store)), runId, { fallSteps: 0 })).rejects.toThrow(
        /from 1 and up, got 0/,
      );
    });

    it("lists exactly the curves the rule picks, in report order (property)", async () => {
      await fc.assert(
        fc.asyncProperty(
          // Curves of two scorers per sample: several trajectories of one sample.
          fc.array(fc.tuple(curve, fc.option(curve)), { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 1, max: 4 }),
          fc.constantFrom(0, 0.01, 0.1),
          async (curves, fallSteps, minFall) => {
            const id = freshRunId();
            await store.startRun({ id, spec: {}, transport: "local" });
            const ids = curves.map((_, i) => `s${i}`);
            await store.insertSamples(
              id,
              ids.map((sampleId) => sample(sampleId, { taskId: `task-${sampleId}` })),
            );
            const expected: Expected[] = [];
            const rows = curves.flatMap(([judge, other], i) =>
              (
                [
                  ["judge", judge],
                  ["other", other],
                ] as const
              ).flatMap(([scorer, progress]) => {
                if (progress === null) return [];
                const sampleId = `s${i}`;
                const streak = firstStreak(progress, fallSteps, minFall);
                if (streak !== undefined) expected.push({ sampleId, scorer, ...streak });
                return [{ ...scored(id, sampleId, scorer, 0.5), detail: { progress } }];
              }),
            );
            await store.writeScores(rows);
            // Report order: longest fall, largest drop, then task, sample and scorer.
            expected.sort(
              (a, b) =>
                b.falls - a.falls ||
                b.drop - a.drop ||
                (a.sampleId < b.sampleId ? -1 : a.sampleId > b.sampleId ? 1 : 0) ||
                (a.scorer < b.scorer ? -1 : a.scorer > b.scorer ? 1 : 0),
            );

            const stops = await earlyStops(runnerOf(driverOf(store)), id, { fallSteps, minFall });
            expect(stops.total).toBe(expected.length);
            expect(
              stops.candidates.map(({ sampleId, scorer, fromStep, falls }) => ({
                sampleId,
                scorer,
                fromStep,
                falls,
              })),
            ).toEqual(expected.map(({ drop: _, ...candidate }) => candidate));
          },
        ),
        { numRuns: kind === "pglite" ? 30 : 60 },
      );
    });
  });
}
