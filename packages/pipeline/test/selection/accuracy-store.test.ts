import { randomUUID } from "node:crypto";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runReports } from "@assay/store/reports";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selectForRun } from "../../src/index.js";
import { type CandidateSpec, seedRun } from "./support/report-run.js";
import { DRIVERS, type TestStore } from "./support/stores.js";

/** A candidate: labelled right, wrong or not at all; scored on a grid, or overflowed. */
const candidate: fc.Arbitrary<CandidateSpec> = fc.record(
  {
    label: fc.boolean(),
    judge: fc.oneof(
      fc.integer({ min: 0, max: 20 }).map((v) => v / 20),
      fc.constant("overflow"),
    ),
  },
  { requiredKeys: ["judge"] },
);

const run = fc.dictionary(
  fc.string({ unit: fc.constantFrom("a", "b", "c", "d"), minLength: 1, maxLength: 3 }),
  fc.array(candidate, { minLength: 1, maxLength: 4 }),
  { minKeys: 1, maxKeys: 12 },
);

describe.each(Object.keys(DRIVERS) as (keyof typeof DRIVERS)[])(
  "stored accuracies on %s",
  (driver) => {
    let db: TestStore;
    beforeAll(async () => {
      db = await DRIVERS[driver]();
    });
    afterAll(() => db?.dispose());

    it("match selection's own, over the same tasks for all three figures", async () => {
      await fc.assert(
        fc.asyncProperty(run, fc.constantFrom(1, 5), async (tasks, fetchRows) => {
          const runId = `run-${randomUUID()}`;
          await seedRun(db.store, runId, tasks, { usage: false });
          const selected = await selectForRun(db.store, runId, {
            verifierScorer: "judge",
            fetchRows,
          });
          const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
          const stored = report?.accuracy;
          expect(stored?.pass1).toEqual(selected.pass1);
          expect(stored?.selected).toEqual(selected.selected);
          expect(stored?.oracle).toEqual(selected.oracle);
          expect(stored?.unselected).toBe(selected.unselected);
          expect(stored?.selected.of).toBe(stored?.pass1.of);
          expect(stored?.oracle.of).toBe(stored?.pass1.of);
          const noScore = Object.values(tasks).filter((c) =>
            c.every((s) => s.judge === "overflow"),
          );
          expect(stored?.unselected).toBe(noScore.length);
        }),
        { numRuns: 25 },
      );
    });
  },
);
