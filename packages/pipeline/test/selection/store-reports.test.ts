import { PriceTableSchema } from "@assay/core";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runReports, runTrend } from "@assay/store/reports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selectForRun } from "../../src/index.js";
import { OVERFLOWING_TASKS, seedRun, TASKS } from "./support/report-run.js";
import { DRIVERS, type TestStore } from "./support/stores.js";

const prices = PriceTableSchema.parse({
  models: { gen: { input_per_million: 1, output_per_million: 2 }, "judge-model": { gpu_hour: 36 } },
});

describe.each(Object.keys(DRIVERS) as (keyof typeof DRIVERS)[])(
  "selection and reports on %s",
  (driver) => {
    let db: TestStore;

    // Runs seeded and selected once; a test that selects again gets the same rows (a
    // selection replaces the task's earlier one), so each test stands on its own.
    beforeAll(async () => {
      db = await DRIVERS[driver]();
      await seedRun(db.store, "r1", TASKS, { name: "nightly" });
      await seedRun(
        db.store,
        "r2",
        {
          E: [
            { label: true, judge: 0.9 },
            { label: false, judge: 0.1 },
          ],
        },
        { name: "nightly", usage: false },
      );
      await seedRun(db.store, "overflowing", OVERFLOWING_TASKS, { usage: false });
      await seedRun(
        db.store,
        "other",
        { F: [{ label: true, judge: 0.5 }] },
        { name: "adhoc", usage: false },
      );
      await selectR1();
      await selectForRun(db.store, "r2", {
        verifierScorer: "judge",
        method: "pivot_tournament",
        k: 2,
      });
      await selectForRun(db.store, "overflowing", { verifierScorer: "judge" });
    });
    afterAll(() => db?.dispose());

    function selectR1() {
      return selectForRun(db.store, "r1", {
        verifierScorer: "judge",
        checkScorer: "exact",
        fetchRows: 3,
      });
    }

    it("selects per task and stores the evidence", async () => {
      const result = await selectR1();
      // A picks #1 (right), B ties 0.7/0.7 → #0 (right), C picks #0 (exact 0: wrong), D picks #1 (wrong).
      expect(result.selected).toEqual({ count: 2, of: 4, rate: 0.5 });
      expect(result.pass1).toEqual({ count: 1, of: 4, rate: 0.25 });
      expect(result.oracle).toEqual({ count: 3, of: 4, rate: 0.75 });
      expect(result.ties).toBe(1);
      expect(result.unselected).toBe(0);

      const { rows } = await runnerOf(driverOf(db.store)).query<Record<string, unknown>>(
        "SELECT task_id, selected_index, tie, discrete_tie, tie_break, detail FROM selections WHERE run_id = 'r1' ORDER BY task_id",
      );
      expect(
        rows.map((r) => [r.task_id, r.selected_index, r.tie, r.discrete_tie, r.tie_break]),
      ).toEqual([
        // A: argmax levels 0, 1, 1 (first max) → 0.5 vs 0.5 at the top: a discrete judge ties.
        ["A", 1, false, true, null],
        ["B", 0, true, null, "lowest_candidate_index"],
        ["C", 0, false, null, null],
        ["D", 1, false, null, null],
      ]);
      expect(rows[3]?.detail).toMatchObject({ scores: { 0: null, 1: 0.4 }, ranking: [1] });
    });

    it("reports accuracies, ties, cost, truncation, unscored reasons and the histogram", async () => {
      const [report] = await runReports(runnerOf(driverOf(db.store)), ["r1"], { prices });
      expect(report).toBeDefined();
      if (report === undefined) return;
      expect(report.samples).toBe(11);
      expect(report.tasks).toBe(4);
      expect(report.accuracy).toMatchObject({
        selectedTasks: 4,
        unselected: 0,
        methods: ["best_of_n"],
      });
      expect(report.accuracy.selected.rate).toBe(0.5);
      expect(report.ties.continuous).toEqual({ count: 1, of: 4, rate: 0.25 });
      expect(report.ties.discrete).toEqual({ count: 1, of: 1, rate: 1 });

      // Generation: 11 × (1000 × 1 + 500 × 2) / 1e6 = 0.022. Verification: 11 × 100 ms at
      // 36 per GPU-hour = 0.011. Two solved tasks → 0.0165 per solved task.
      const cost = report.cost;
      expect(cost?.generation).toBeCloseTo(0.022, 12);
      expect(cost?.verification).toBeCloseTo(0.011, 12);
      expect(cost?.perSolvedTask.total).toBeCloseTo(0.0165, 12);
      expect(cost?.perSolvedTask.generation).toBeCloseTo(0.011, 12);
      expect(cost?.perSample).toBeCloseTo(0.003, 12);
      expect(cost?.warnings).toEqual([]);

      // One call per candidate. A#0: 4000 tokens before fitting → [2048, 4096); D#0: 10000 →
      // [8192, 16384); the other nine (300 tokens, not cut) → [0, 512).
      expect(report.truncation.overall).toEqual({ count: 2, of: 11, rate: 2 / 11 });
      expect(
        report.truncation.byInputLength.map((b) => [
          b.fromTokens,
          b.toTokens,
          b.truncation.count,
          b.truncation.of,
        ]),
      ).toEqual([
        [0, 512, 0, 9],
        [2048, 4096, 1, 1],
        [8192, 16384, 1, 1],
      ]);

      // 11 judge rows + 4 exact rows; one overflow, one unparseable.
      expect(report.unscored.unscored).toEqual({ count: 2, of: 15, rate: 2 / 15 });
      expect(report.unscored.byReason).toEqual([
        { reason: "overflow", count: 1 },
        { reason: "unparseable", count: 1 },
      ]);
      expect(report.histograms).toEqual([
        { scorer: "exact", counts: [2, 0, 0, 0, 0, 0, 0, 0, 0, 1], scored: 3 },
        { scorer: "judge", counts: [0, 1, 1, 1, 1, 1, 1, 2, 1, 1], scored: 10 },
      ]);
    });

    it("leaves cost null with a warning when usage is missing or a model is unpriced", async () => {
      const [r2] = await runReports(runnerOf(driverOf(db.store)), ["r2"], { prices });
      expect(r2?.cost?.total).toBeNull();
      expect(r2?.cost?.warnings).toContain("no generator usage recorded: generator cost unknown");
      const [r1] = await runReports(runnerOf(driverOf(db.store)), ["r1"], {
        prices: PriceTableSchema.parse({ models: { gen: { input_per_million: 1 } } }),
      });
      expect(r1?.cost?.verification).toBeNull();
      expect(r1?.cost?.perSolvedTask.total).toBeNull();
    });

    it("gives the trend of the last runs of a series, oldest first, from completed runs' rollups", async () => {
      const runner = runnerOf(driverOf(db.store));
      // Selected but never completed: the trend reads rollups only, so it shows the runs
      // as unfinished, without figures, instead of reading their raw rows.
      const unfinished = await runTrend(runner, { name: "nightly", last: 5 }, { prices });
      expect(unfinished.map((p) => [p.run.runId, p.state, p.pass1])).toEqual([
        ["r1", "unfinished", null],
        ["r2", "unfinished", null],
      ]);
      for (const runId of ["r1", "r2", "other"]) await db.store.writeRollups(runId);
      const trend = await runTrend(runner, { name: "nightly", last: 5 }, { prices });
      expect(trend.map((p) => p.state)).toEqual(["completed", "completed"]);
      expect(trend.map((p) => [p.run.runId, p.pass1, p.selected, p.oracle])).toEqual([
        ["r1", 0.25, 0.5, 0.75],
        ["r2", 1, 1, 1],
      ]);
      expect(trend[0]?.costPerSolvedTask).toBeCloseTo(0.0165, 12);
      expect(trend[1]?.costPerSolvedTask).toBeNull();
      const last = await runTrend(runner, { last: 1 });
      expect(last.map((p) => p.run.runId)).toEqual(["other"]);
    });

    it("counts a task with no scored candidate as unsolved, in all three denominators", async () => {
      // Five tasks whose first candidate is right; in two the verifier overflowed on both.
      const result = await selectForRun(db.store, "overflowing", { verifierScorer: "judge" });
      expect(result.pass1).toEqual({ count: 5, of: 5, rate: 1 });
      expect(result.selected).toEqual({ count: 0, of: 5, rate: 0 });
      expect(result.oracle).toEqual({ count: 5, of: 5, rate: 1 });
      expect(result.unselected).toBe(2);

      const [report] = await runReports(runnerOf(driverOf(db.store)), ["overflowing"]);
      expect(report?.accuracy).toEqual({
        tasks: 5,
        selectedTasks: 3,
        unselected: 2,
        methods: ["best_of_n"],
        pass1: { count: 5, of: 5, rate: 1 },
        selected: { count: 0, of: 5, rate: 0 },
        oracle: { count: 5, of: 5, rate: 1 },
      });
    });

    it("reads a stored task with nothing selected as unsolved, whatever its selected_correct", async () => {
      const runner = runnerOf(driverOf(db.store));
      await selectForRun(db.store, "overflowing", { verifierScorer: "judge" });
      // As selection stored such a task before it said "unsolved" there.
      await runner.query(
        "UPDATE selections SET selected_correct = NULL WHERE run_id = 'overflowing' AND selected_index IS NULL",
      );
      const [report] = await runReports(runner, ["overflowing"]);
      expect(report?.accuracy.selected).toEqual({ count: 0, of: 5, rate: 0 });
      expect(report?.accuracy.pass1.of).toBe(5);
    });

    it("names a missing run", async () => {
      await expect(runReports(runnerOf(driverOf(db.store)), ["nope"])).rejects.toThrow(
        /No run with id `nope`/,
      );
    });
  },
);
