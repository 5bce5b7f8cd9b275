import { auroc, type ScoreRow } from "@assay/core";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf, runReports } from "../src/reports/index.js";
import { freshRunId, sample } from "./fixtures.js";

/** One answer: its label, and the verifier's K = 2 variant values for each of two criteria. */
interface Answer {
  label: boolean;
  correct: [number, number];
  style: [number, number];
}

// `correct` separates the labels perfectly; `style` ranks them backwards; their mean is
// somewhere in between. The last answer's style variants average 1.1: out of range.
const ANSWERS: Answer[] = [
  { label: true, correct: [0.9, 0.7], style: [0.1, 0.3] },
  { label: true, correct: [0.8, 0.8], style: [0.2, 0.2] },
  { label: true, correct: [0.6, 1.0], style: [0.4, 0.2] },
  { label: false, correct: [0.2, 0.4], style: [0.7, 0.9] },
  { label: false, correct: [0.1, 0.1], style: [0.6, 0.8] },
  { label: false, correct: [0.5, 0.3], style: [0.3, 0.5] },
  { label: false, correct: [0.0, 0.2], style: [1.2, 1.0] },
];

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** A verifier row as the verifier stores it: the mean of every criterion × variant value. */
function verifierRow(runId: string, sampleId: string, criteria: [string, number[]][]): ScoreRow {
  return {
    runId,
    sampleId,
    scorer: "judge",
    criterion: "",
    repetition: 0,
    rule: "default",
    status: "scored",
    value: mean(criteria.flatMap(([, values]) => values)),
    reason: null,
    detail: {
      head: "probe",
      criteria: criteria.map(([name, values]) => ({
        name,
        value: mean(values),
        variants: values.map((value, variant) => ({ variant, value })),
      })),
    },
  };
}

describe.each(DRIVER_NAMES)("calibration by criterion on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("measures the verifier's stored value and each of its criteria against the labels", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    await db.store.insertSamples(
      runId,
      ANSWERS.map((a, i) => sample(`s${i}`, { label: a.label })),
    );
    await db.store.writeScores(
      ANSWERS.map((a, i) =>
        verifierRow(runId, `s${i}`, [
          ["correct", a.correct],
          ["style", a.style],
        ]),
      ),
    );
    const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
    const rows = report?.calibration ?? [];
    expect(rows.map((c) => [c.scorer, c.criterion, c.summary.count])).toEqual([
      ["judge", "", 7],
      ["judge", "correct", 7],
      // The answer whose style averages 1.1 has no value in [0, 1] for it.
      ["judge", "style", 6],
    ]);
    const byCriterion = new Map(rows.map((c) => [c.criterion, c.summary]));
    expect(byCriterion.get("correct")?.auroc).toBe(1);
    expect(byCriterion.get("style")?.auroc).toBe(0);
    const stored = ANSWERS.map((a) => ({
      score: mean([...a.correct, ...a.style]),
      label: a.label,
    }));
    expect(byCriterion.get("")?.auroc).toBe(auroc(stored));
    expect(byCriterion.get("correct")?.brier).toBeCloseTo(
      mean(ANSWERS.map((a) => (mean(a.correct) - (a.label ? 1 : 0)) ** 2)),
      12,
    );
  });

  it("adds no criterion row for a verifier with one criterion", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    await db.store.insertSamples(
      runId,
      ANSWERS.map((a, i) => sample(`s${i}`, { label: a.label })),
    );
    await db.store.writeScores(
      ANSWERS.map((a, i) => verifierRow(runId, `s${i}`, [["correct", a.correct]])),
    );
    const [report] = await runReports(runnerOf(driverOf(db.store)), [runId]);
    expect(report?.calibration?.map((c) => [c.criterion, c.summary.auroc])).toEqual([["", 1]]);
  });
});
