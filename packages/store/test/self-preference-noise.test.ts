import type { ScoreRow } from "@assay/core";
import { openTestStore, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf, runReports } from "../src/reports/index.js";
import { freshRunId, sample } from "./fixtures.js";

/** One labelled answer: whether a same-family model wrote it, and the verifier's score. */
interface Answer {
  label: boolean;
  sameFamily: boolean;
  score: number;
}

const ANSWERS_PER_RUN = 120;
const NOISE_RUNS = 80;
const PLANTED_RUNS = 20;
// A 95% interval wrongly lies above zero in about 2.5% of runs without a preference; a
// warning on noise alone (a gap above 0.05) fires in about one run in six.
const MOST_NOISE_WARNINGS = 6;

const unit = fc.double({ min: 0, max: 1, noNaN: true });

// The generator's family is a coin flip, independent of the answer's correctness and score.
const noPreferenceRun = fc.array(
  fc.record({ label: fc.boolean(), sameFamily: fc.boolean(), score: unit }),
  { minLength: ANSWERS_PER_RUN, maxLength: ANSWERS_PER_RUN },
);

// The verifier adds 0.2 to its own family's answers at equal correctness.
const plantedPreferenceRun = noPreferenceRun.map((answers) =>
  answers.map((a) => ({ ...a, score: a.sameFamily ? 0.2 + 0.8 * a.score : 0.8 * a.score })),
);

async function storeRun(db: TestStore, answers: readonly Answer[]): Promise<string> {
  const runId = freshRunId();
  await db.store.startRun({ id: runId, spec: {}, transport: "local" });
  await db.store.insertSamples(
    runId,
    answers.map((a, i) =>
      sample(`s${i}`, {
        label: a.label,
        generator: {
          model: a.sameFamily ? "Qwen3-8B" : "llama-3.1-8b",
          input_tokens: 1,
          output_tokens: 1,
        },
      }),
    ),
  );
  const scores: ScoreRow[] = answers.map((a, i) => ({
    runId,
    sampleId: `s${i}`,
    scorer: "judge",
    criterion: "",
    repetition: 0,
    rule: "default",
    status: "scored",
    value: a.score,
    reason: null,
    detail: { head: "probe", family: "qwen" },
  }));
  await db.store.writeScores(scores);
  return runId;
}

/** Each run's self-preference warning, read from the run report. */
async function warnings(db: TestStore, runs: readonly Answer[][]): Promise<boolean[]> {
  const runIds = [];
  for (const answers of runs) runIds.push(await storeRun(db, answers));
  const reports = await runReports(runnerOf(driverOf(db.store)), runIds);
  return reports.map((report) => {
    const [check] = report.selfPreference ?? [];
    if (check === undefined) throw new Error(`no self-preference check in ${report.run.runId}`);
    const groups = [check.sameFamily, check.otherFamily].flatMap((g) => [g.correct, g.incorrect]);
    expect(groups.reduce((n, g) => n + g.answers, 0)).toBe(ANSWERS_PER_RUN);
    return check.warning;
  });
}

// The warning's calibration over a hundred generated runs, on the server driver only: the
// embedded store runs the same queries, and the calibration suite checks that both drivers
// give the same self-preference figures (pglite.test.ts, postgres.test.ts).
describe("self-preference warning", () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore("postgres");
  });
  afterAll(() => db?.dispose());

  it("rarely warns when generators are assigned at random, and warns on a planted preference of 0.2", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(noPreferenceRun, { minLength: NOISE_RUNS, maxLength: NOISE_RUNS }),
        fc.array(plantedPreferenceRun, { minLength: PLANTED_RUNS, maxLength: PLANTED_RUNS }),
        async (noise, planted) => {
          const onNoise = await warnings(db, noise);
          expect(onNoise.filter(Boolean).length).toBeLessThanOrEqual(MOST_NOISE_WARNINGS);
          expect(await warnings(db, planted)).toEqual(planted.map(() => true));
        },
      ),
      { numRuns: 1, seed: 20_261_202, endOnFailure: true },
    );
  });
});
