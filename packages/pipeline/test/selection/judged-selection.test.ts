import { randomUUID } from "node:crypto";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runReports } from "@assay/store/reports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selectForRun } from "../../src/index.js";
import { type AblationRunSpec, seedAblationRun, selectOptionsOf } from "./support/ablation-run.js";
import { DRIVERS, type TestStore } from "./support/stores.js";

/**
 * A judged run whose judge compared one task's candidates only. S has one candidate (no
 * pair to judge), U two the judge never compared, P three of which the verifier scored
 * one, N two the verifier scored neither of, J two the judge compared (it prefers #1).
 */
const RUN: AblationRunSpec = {
  criteria: ["default"],
  method: "pivot_tournament",
  k: 3,
  judge: { seed: 7, strengths: { J: [1, 9] } },
  tasks: {
    J: [
      { label: false, values: [[0.9]] },
      { label: true, values: [[0.1]] },
    ],
    N: [
      { label: true, values: "overflow" },
      { label: false, values: "overflow" },
    ],
    P: [
      { label: false, values: "overflow" },
      { label: true, values: [[0.3]] },
      { label: false, values: "overflow" },
    ],
    S: [{ label: true, values: [[0.8]] }],
    U: [
      { label: true, values: [[0.9]] },
      { label: false, values: [[0.2]] },
    ],
  },
};

describe.each(Object.keys(DRIVERS) as (keyof typeof DRIVERS)[])(
  "judged selection of tasks the judge did not compare, on %s",
  (driver) => {
    let db: TestStore;
    beforeAll(async () => {
      db = await DRIVERS[driver]();
    });
    afterAll(() => db?.dispose());

    it("picks by the verifier's score where the judge compared nothing, and says why", async () => {
      const runId = `judged-${randomUUID()}`;
      await seedAblationRun(db.store, runId, RUN);
      const totals = await selectForRun(db.store, runId, selectOptionsOf(RUN));
      // What the end-of-run summary prints: only N has no scored candidate.
      expect(totals.unselected).toBe(1);
      expect(totals.selected).toEqual({ count: 4, of: 5, rate: 0.8 });

      const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
      expect(report?.accuracy).toMatchObject({
        tasks: 5,
        selectedTasks: 4,
        unselected: 1,
        selected: { count: 4, of: 5, rate: 0.8 },
        pass1: { count: 3, of: 5, rate: 0.6 },
      });

      const { rows } = await runnerOf(driverOf(db.store)).query<{
        task_id: string;
        selected_index: number | null;
        detail: { reason?: string };
      }>("SELECT task_id, selected_index, detail FROM selections WHERE run_id = $1", [runId]);
      const byTask = Object.fromEntries(
        rows.map((r) => [r.task_id, [r.selected_index, r.detail.reason ?? null]]),
      );
      expect(byTask).toEqual({
        J: [1, null],
        N: [null, "no scored candidate"],
        P: [1, "single candidate"],
        S: [0, "single candidate"],
        U: [0, "no judged pair"],
      });
    });
  },
);
