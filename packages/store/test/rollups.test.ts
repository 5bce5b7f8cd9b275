import { randomUUID } from "node:crypto";
import type { JobResult, Sample, ScorerMean, SelectionRecord } from "@assay/core";
import { propertyRuns } from "@assay/test-support/property-runs";
import { storeSelections } from "@assay/test-support/store-selections";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import {
  earlyStops,
  hasRollups,
  rawRunFigures,
  readRollups,
  runnerOf,
  runReports,
  writeRollups,
} from "../src/reports/index.js";
import { sample } from "./fixtures.js";

/** One candidate answer and everything a run stores about it. */
interface CandidateSpec {
  label: boolean | null;
  generator: { model: string; input: number; cached: number; output: number } | null;
  /** The verifier's value (a coarse grid, so ties happen), or an unscored reason. */
  judge: number | "overflow" | "error";
  /** Whether the verifier's detail names its head (calibration) and family (self-preference). */
  head: boolean;
  family: boolean;
  /** Per criterion, the verifier's variant values in its detail (calibration by criterion). */
  criteria: (number | null)[][];
  /** The verifier's value after each prefix (a trajectory, for early stops), or none. */
  progress: (number | null)[] | null;
  /** The deterministic check's value, or an unscored reason; absent: not run. */
  exact?: 0 | 1 | "unparseable";
  /** Verifier prompts (tokens before fitting, tokens dropped); each is a truncations row. */
  prompts: [number, number][];
  computeMs: number | null;
  /**
   * The job's share of the forward passes (then its prompts are counted too); null or
   * absent: a usage row stored before either was counted.
   */
  passShare?: number | null;
}

interface TaskSpec {
  candidates: CandidateSpec[];
  /** The stored selection, with every combination of known and unknown correctness. */
  selection: Omit<SelectionRecord, "taskId" | "candidates" | "selectedSampleId" | "detail"> | null;
}

const maybeBool = fc.constantFrom(true, false, null);

const point = fc.oneof(
  fc.integer({ min: 0, max: 8 }).map((v) => v / 8),
  fc.double({ min: 0, max: 1, noNaN: true }),
);
// Random curves, and falling ones (with the odd unscored prefix) so that streaks are common.
const progress = fc.option(
  fc.oneof(
    fc.array(fc.option(point), { maxLength: 8 }),
    fc
      .array(point, { minLength: 3, maxLength: 8 })
      .chain((values) =>
        fc
          .option(fc.nat(values.length - 1))
          .map((gap) => [...values].sort((a, b) => b - a).map((v, i) => (i === gap ? null : v))),
      ),
  ),
);

const candidate: fc.Arbitrary<CandidateSpec> = fc.record(
  {
    label: maybeBool,
    generator: fc.option(
      fc.record({
        model: fc.constantFrom("Qwen3-8B", "llama-3", "unpriced"),
        input: fc.nat(5000),
        cached: fc.nat(500),
        output: fc.nat(2000),
      }),
    ),
    judge: fc.oneof(
      fc.integer({ min: 0, max: 8 }).map((v) => v / 8),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.constantFrom("overflow" as const, "error" as const),
    ),
    head: fc.boolean(),
    family: fc.boolean(),
    // Some variant values unscored, some means out of [0, 1]; often more than one criterion.
    criteria: fc.array(fc.array(fc.option(fc.oneof(point, fc.constant(1.5))), { maxLength: 3 }), {
      maxLength: 3,
    }),
    progress,
    exact: fc.constantFrom(0 as const, 1 as const, "unparseable" as const),
    prompts: fc.array(fc.tuple(fc.constantFrom(10, 600, 1500, 5000, 40_000, 200_000), fc.nat(3)), {
      maxLength: 3,
    }),
    computeMs: fc.option(fc.double({ min: 0, max: 1000, noNaN: true })),
    passShare: fc.option(fc.integer({ min: 1, max: 7 }).map((rows) => 1 / rows)),
  },
  {
    requiredKeys: [
      "label",
      "generator",
      "judge",
      "head",
      "family",
      "criteria",
      "progress",
      "prompts",
      "computeMs",
    ],
  },
);

const task: fc.Arbitrary<TaskSpec> = fc
  .array(candidate, { minLength: 1, maxLength: 4 })
  .chain((candidates) =>
    fc.record({
      candidates: fc.constant(candidates),
      selection: fc.option(
        fc.record({
          method: fc.constantFrom("best_of_n", "pivot_tournament"),
          selectedIndex: fc.option(fc.nat(candidates.length - 1)),
          tie: fc.boolean(),
          discreteTie: maybeBool,
          tieBreak: fc.constantFrom(null, "lowest_index"),
          selectedCorrect: maybeBool,
          firstCorrect: maybeBool,
          anyCorrect: maybeBool,
        }),
      ),
    }),
  );

const run = fc.array(task, { maxLength: 6 });

/** Stores a generated run the way the pipeline does: samples, then each job's rows. */
async function seed(db: TestStore, runId: string, tasks: TaskSpec[]): Promise<void> {
  const { store } = db;
  await store.startRun({ id: runId, name: "nightly", spec: {}, transport: "local" });
  const samples: Sample[] = [];
  const results: JobResult[] = [];
  tasks.forEach(({ candidates }, t) => {
    candidates.forEach((c, index) => {
      const sampleId = `t${t}#${index}`;
      samples.push(
        sample(sampleId, {
          candidateIndex: index,
          line: t + 1,
          ...(c.label !== null && { label: c.label }),
          ...(c.generator !== null && {
            generator: {
              model: c.generator.model,
              input_tokens: c.generator.input,
              cached_input_tokens: c.generator.cached,
              output_tokens: c.generator.output,
            },
          }),
        }),
      );
      const key = { runId, sampleId, criterion: "", repetition: 0, rule: "default" };
      const judge = c.judge;
      results.push({
        score: {
          ...key,
          scorer: "judge",
          status: typeof judge === "number" ? "scored" : "unscored",
          value: typeof judge === "number" ? judge : null,
          reason: typeof judge === "number" ? null : judge,
          detail: {
            ...(c.head && { head: "probe" }),
            ...(c.family && { family: "qwen" }),
            criteria: c.criteria.map((values, i) => ({
              name: `c${i}`,
              variants: values.map((value, variant) => ({ variant, value })),
            })),
            ...(c.progress !== null && { progress: c.progress }),
          },
        },
        truncations: c.prompts.map(([original, dropped], repetition) => ({
          ...key,
          scorer: "judge",
          criterion: "correct",
          repetition,
          originalTokens: original,
          keptTokens: original - dropped,
          droppedTokens: dropped,
          slot: dropped > 0 ? "question" : "",
          policy: "error",
        })),
        usage: [
          {
            runId,
            sampleId,
            role: "verifier",
            scorer: "judge",
            model: "judge-model",
            inputTokens: c.prompts.reduce(
              (sum, [original, dropped]) => sum + original - dropped,
              0,
            ),
            cachedInputTokens: 0,
            cacheWriteTokens: 0,
            outputTokens: 0,
            computeMs: c.computeMs,
            device: "cuda:0",
            prompts: c.passShare == null ? null : c.prompts.length,
            forwardPasses: c.passShare ?? null,
          },
        ],
      });
      if (c.exact !== undefined) {
        const exact = c.exact;
        results.push({
          score: {
            ...key,
            scorer: "exact",
            status: typeof exact === "number" ? "scored" : "unscored",
            value: typeof exact === "number" ? exact : null,
            reason: typeof exact === "number" ? null : exact,
            detail: null,
          },
          truncations: [],
          usage: [],
        });
      }
    });
  });
  await store.insertSamples(runId, samples);
  await store.writeResults(results);
  const selections = tasks.flatMap(({ candidates, selection }, t): SelectionRecord[] =>
    selection === null
      ? []
      : [
          {
            ...selection,
            taskId: `t${t}`,
            candidates: candidates.length,
            selectedSampleId:
              selection.selectedIndex === null ? null : `t${t}#${selection.selectedIndex}`,
            detail: {},
          },
        ],
  );
  await storeSelections(store, runId, selections);
}

/** Whether the candidate's verifier curve falls by 0.01 or more three steps in a row. */
function fallsThrice({ judge, progress }: CandidateSpec): boolean {
  if (typeof judge !== "number" || progress === null) return false;
  let run = 0;
  for (let i = 1; i < progress.length; i += 1) {
    const [before, value] = [progress[i - 1], progress[i]];
    const falls = typeof before === "number" && typeof value === "number" && before - value >= 0.01;
    run = falls ? run + 1 : 0;
    if (run >= 3) return true;
  }
  return false;
}

/** Each scorer's mean and count of scored values, recomputed from the generated run. */
function expectedMeans(tasks: readonly TaskSpec[]): [string, number, number][] {
  const candidates = tasks.flatMap((t) => t.candidates);
  const judge = candidates.flatMap((c) => (typeof c.judge === "number" ? [c.judge] : []));
  const exact = candidates.flatMap((c) => (typeof c.exact === "number" ? [c.exact] : []));
  const row = (scorer: string, values: number[]): [string, number, number][] =>
    values.length === 0
      ? []
      : [[scorer, values.length, rounded(values.reduce((a, b) => a + b, 0) / values.length)]];
  return [...row("exact", exact), ...row("judge", judge)];
}

function meanAndCount(m: ScorerMean): [string, number, number] {
  return [m.scorer, m.scored, rounded(m.mean)];
}

/** Sums added in another order may differ in the last bits. */
const rounded = (v: number) => Number(v.toFixed(12));

const PRICES = {
  currency: "USD",
  models: {
    "Qwen3-8B": { input_per_million: 0.1, cached_input_per_million: 0.01, output_per_million: 0.3 },
    "llama-3": { input_per_million: 0.2, output_per_million: 0.2 },
    "judge-model": { gpu_hour: 2.5 },
  },
};

describe.each(DRIVER_NAMES)("rollups on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("hold every report figure the raw rows give, for any run", async () => {
    await fc.assert(
      fc.asyncProperty(run, run, async (rolledTasks, rawTasks) => {
        const runner = runnerOf(driverOf(db.store));
        const rolled = `rolled-${randomUUID()}`;
        const running = `running-${randomUUID()}`;
        await seed(db, rolled, rolledTasks);
        await seed(db, running, rawTasks);
        const fromRaw = await runReports(runner, [rolled, running], { prices: PRICES });
        const rawFigures = (await rawRunFigures(runner, [rolled])).get(rolled);
        // The rolled-up setting (whole list and a short one) and another one, read raw.
        const settings = [{}, { limit: 2 }, { fallSteps: 2, minFall: 0 }];
        const rawStops = await Promise.all(settings.map((o) => earlyStops(runner, rolled, o)));

        expect(fromRaw[0]?.scorerMeans.map(meanAndCount)).toEqual(expectedMeans(rolledTasks));

        await writeRollups(driverOf(db.store), rolled);
        expect(await hasRollups(runner, rolled)).toBe(true);
        expect((await readRollups(runner, [rolled, running])).get(rolled)).toEqual(rawFigures);
        // One run read from rollups, the other (no rollups yet) from raw rows, in one call.
        expect(await runReports(runner, [rolled, running], { prices: PRICES })).toEqual(fromRaw);
        for (const [i, options] of settings.entries()) {
          expect(await earlyStops(runner, rolled, options)).toEqual(rawStops[i]);
        }
      }),
      { numRuns: propertyRuns(driver === "pglite" ? 12 : 20) },
    );
  });

  it("reads the rollups, not the raw rows, once they are written", async () => {
    const runner = runnerOf(driverOf(db.store));
    const runId = `run-${randomUUID()}`;
    const [tasks] = fc.sample(
      run.filter((t) => t.length > 2 && t.some((task) => task.candidates.some(fallsThrice))),
      { numRuns: 1, seed: 7 },
    );
    await seed(db, runId, tasks ?? []);
    await writeRollups(driverOf(db.store), runId);
    const [before] = await runReports(runner, [runId], { prices: PRICES });
    const stops = await earlyStops(runner, runId);
    // Raw rows a report would otherwise scan are gone; the rolled-up report is unchanged.
    for (const table of ["scores", "usage", "truncations", "selections"]) {
      await runner.query(`DELETE FROM ${table} WHERE run_id = $1`, [runId]);
    }
    expect(await runReports(runner, [runId], { prices: PRICES })).toEqual([before]);
    expect(stops.total).toBeGreaterThan(0);
    expect(await earlyStops(runner, runId)).toEqual(stops);
  });

  it("report a run from raw rows when its rollup was written before scorer means were kept", async () => {
    const runner = runnerOf(driverOf(db.store));
    const runId = `run-${randomUUID()}`;
    const [tasks] = fc.sample(
      run.filter((t) => t.some((task) => task.candidates.some((c) => typeof c.judge === "number"))),
      { numRuns: 1, seed: 11 },
    );
    await seed(db, runId, tasks ?? []);
    const [raw] = await runReports(runner, [runId]);
    expect(raw?.scorerMeans.length).toBeGreaterThan(0);
    await writeRollups(driverOf(db.store), runId);
    await runner.query(
      "DELETE FROM summary_rollups WHERE run_id = $1 AND kind = 'scorer_moments'",
      [runId],
    );
    expect((await readRollups(runner, [runId])).has(runId)).toBe(false);
    expect(await runReports(runner, [runId])).toEqual([raw]);
  });

  it("report a run from raw rows when its self-preference rollup has no interval", async () => {
    const runner = runnerOf(driverOf(db.store));
    const runId = `run-${randomUUID()}`;
    const [tasks] = fc.sample(run, { numRuns: 1, seed: 5 });
    await seed(db, runId, tasks ?? []);
    const [raw] = await runReports(runner, [runId]);
    await writeRollups(driverOf(db.store), runId);
    // A summary as it was stored before the gap had an interval: it would warn on noise.
    await runner.query(
      `INSERT INTO summary_rollups (run_id, kind, position, summary)
       VALUES ($1, 'self_preference', 99, '{"scorer": "judge", "gap": 0.07, "warning": true}')`,
      [runId],
    );
    expect((await readRollups(runner, [runId])).has(runId)).toBe(false);
    expect(await runReports(runner, [runId])).toEqual([raw]);
  });

  it("can be written by two completions of one run at once", async () => {
    const runner = runnerOf(driverOf(db.store));
    const runId = `run-${randomUUID()}`;
    const [tasks] = fc.sample(run, { numRuns: 1, seed: 3 });
    await seed(db, runId, tasks ?? []);
    const raw = (await rawRunFigures(runner, [runId])).get(runId);
    await Promise.all([
      writeRollups(driverOf(db.store), runId),
      writeRollups(driverOf(db.store), runId),
    ]);
    expect((await readRollups(runner, [runId])).get(runId)).toEqual(raw);
  });

  it("stop serving a run's accuracy once its selection is rewritten, and serve it again when rewritten", async () => {
    const runner = runnerOf(driverOf(db.store));
    const runId = `run-${randomUUID()}`;
    const tasks: TaskSpec[] = [0, 1, 2].map(() => ({
      candidates: [
        {
          label: true,
          generator: null,
          judge: 0.2,
          head: true,
          family: false,
          criteria: [],
          progress: null,
          prompts: [],
          computeMs: 1,
        },
        {
          label: false,
          generator: null,
          judge: 0.9,
          head: true,
          family: false,
          criteria: [],
          progress: null,
          prompts: [],
          computeMs: 1,
        },
      ],
      selection: {
        method: "best_of_n",
        selectedIndex: 1,
        tie: false,
        discreteTie: null,
        tieBreak: null,
        selectedCorrect: false,
        firstCorrect: true,
        anyCorrect: true,
      },
    }));
    await seed(db, runId, tasks);
    await writeRollups(driverOf(db.store), runId);
    const [first] = await runReports(runner, [runId]);
    expect(first?.accuracy.selected.count).toBe(0);

    // Selection reruns (another method picks the right candidate).
    await storeSelections(
      db.store,
      runId,
      ["t0", "t1", "t2"].map((taskId) => ({
        taskId,
        method: "pivot_tournament",
        candidates: 2,
        selectedIndex: 0,
        selectedSampleId: `${taskId}#0`,
        tie: false,
        discreteTie: null,
        tieBreak: null,
        selectedCorrect: true,
        firstCorrect: true,
        anyCorrect: true,
        detail: {},
      })),
    );
    expect(await hasRollups(runner, runId)).toBe(false);
    const [rerun] = await runReports(runner, [runId]);
    expect(rerun?.accuracy.selected.count).toBe(3);
    expect(rerun?.accuracy.methods).toEqual(["pivot_tournament"]);

    await writeRollups(driverOf(db.store), runId);
    expect(await runReports(runner, [runId])).toEqual([rerun]);
  });
});
