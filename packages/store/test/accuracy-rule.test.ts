import type { SelectionRecord } from "@assay/core";
import { accuracyOf } from "@assay/selection";
import { propertyRuns } from "@assay/test-support/property-runs";
import { storeSelections } from "@assay/test-support/store-selections";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf } from "../src/reports/index.js";
import { selectionStats } from "../src/reports/selection-stats.js";
import { sample, startedRunId } from "./fixtures.js";

// The accuracy rule is written twice on purpose: selection counts pass@1, selected and
// oracle in TypeScript as it picks (accuracyOf, the totals `assay run` prints), and the
// report counts them in SQL over the stored selections (selection-stats.ts, the rollups).
// Whatever selection may store, both must give the same three figures over the same tasks.

const CANDIDATES = 2;
const maybe = fc.constantFrom(true, false, null);

/** One task's stored selection, as selection makes it: nothing picked is unsolved. */
const taskSelection = fc
  .record({
    selectedIndex: fc.option(fc.integer({ min: 0, max: CANDIDATES - 1 })),
    picked: maybe,
    firstCorrect: maybe,
    anyCorrect: maybe,
    tie: fc.boolean(),
  })
  .map(({ selectedIndex, picked, ...rest }) => ({
    ...rest,
    selectedIndex,
    selectedCorrect: selectedIndex === null ? false : picked,
  }));

const RUNS = propertyRuns(15);

describe.each(DRIVER_NAMES)("the accuracy rule on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("gives the same pass@1, selected and oracle in SQL as selection counts them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(taskSelection, { minLength: 0, maxLength: 12 }), async (tasks) => {
        const runId = await startedRunId(db.store);
        const records: SelectionRecord[] = tasks.map((t, i) => ({
          ...t,
          taskId: `t${i}`,
          method: "best_of_n",
          candidates: CANDIDATES,
          selectedSampleId: t.selectedIndex === null ? null : `t${i}#${t.selectedIndex}`,
          discreteTie: null,
          tieBreak: null,
          detail: {},
        }));
        await db.store.insertSamples(
          runId,
          records.flatMap((r) =>
            Array.from({ length: CANDIDATES }, (_, index) =>
              sample(`${r.taskId}#${index}`, { taskId: r.taskId, candidateIndex: index }),
            ),
          ),
        );
        await storeSelections(db.store, runId, records);

        const inTs = accuracyOf(records);
        const inSql = (await selectionStats(runnerOf(driverOf(db.store)), [runId])).get(runId);
        if (records.length === 0) {
          expect(inSql).toBeUndefined();
          return;
        }
        expect(inSql).toBeDefined();
        expect({ pass1: inSql?.pass1, selected: inSql?.selected, oracle: inSql?.oracle }).toEqual({
          pass1: inTs.pass1,
          selected: inTs.selected,
          oracle: inTs.oracle,
        });
        expect(inSql?.unselected).toBe(inTs.unselected);
      }),
      { numRuns: RUNS },
    );
  });
});
