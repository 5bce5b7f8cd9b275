import { randomUUID } from "node:crypto";
import type { JobResult, PriceTableInput, RunReport, Sample, SelectionRecord } from "@assay/core";
import { storeSelections } from "@assay/test-support/store-selections";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { importPrices, reportBundle, runnerOf, writeRollups } from "../src/reports/index.js";
import { sample } from "./fixtures.js";

// The analyst views (migrations/analyst-views.sql) against the report's own figures,
// over generated runs: one to many candidates, missing labels, tied and unscored values,
// refused prompts, runs with and without selection, pass rules of every kind.

type Value = number | "overflow" | null;

interface CandidateSpec {
  label: boolean | null;
  /** The verifier's value, an unscored reason, or no row. */
  judge: Value;
  /** A deterministic scorer's value (f1), an unscored reason, or no row. */
  f1: Value;
  generator: {
    model: string;
    input: number;
    cached: number;
    cacheWrite: number;
    output: number;
  } | null;
  /** Verifier prompts: tokens before fitting, tokens kept. */
  prompts: [number, number][];
}

interface RunSpecChoice {
  selection: { threshold: number } | null;
  pass: { threshold?: number; scorers?: Record<string, number>; solved_by?: string } | null;
}

interface GeneratedRun {
  spec: RunSpecChoice;
  tasks: { candidates: CandidateSpec[]; selection: SelectionRecordSpec | null }[];
  inputErrors: number;
  /** Whether the run recorded how many model calls it planned (older runs did not). */
  plannedModelCallsRecorded: boolean;
}

type SelectionRecordSpec = Omit<
  SelectionRecord,
  "taskId" | "candidates" | "selectedSampleId" | "detail"
>;

const grid = fc.constantFrom(0, 0.25, 0.5, 0.6, 0.75, 1);
const value: fc.Arbitrary<Value> = fc.oneof(grid, fc.constantFrom("overflow" as const, null));
const maybeBool = fc.constantFrom(true, false, null);

const candidate: fc.Arbitrary<CandidateSpec> = fc.record({
  label: maybeBool,
  judge: value,
  f1: value,
  generator: fc.option(
    fc.record({
      model: fc.constantFrom("gen-a", "gen-b", "unpriced"),
      input: fc.nat(5000),
      cached: fc.nat(500),
      // Prompt-cache writes: gen-a has a cache-write price, gen-b is charged its input price.
      cacheWrite: fc.oneof(fc.constant(0), fc.nat(800)),
      output: fc.nat(2000),
    }),
    { freq: 5 },
  ),
  prompts: fc.array(
    fc.constantFrom<[number, number]>([100, 100], [3000, 2000], [600, 0], [9000, 9000]),
    { maxLength: 2 },
  ),
});

const spec: fc.Arbitrary<RunSpecChoice> = fc
  .record({
    selection: fc.option(fc.record({ threshold: fc.constantFrom(0.5, 1) })),
    pass: fc.option(
      fc.record(
        {
          threshold: fc.constantFrom(0.5, 0.6, 1),
          scorers: fc.constantFrom({ f1: 1 }, { judge: 0.75 }, {}),
          solved_by: fc.constantFrom("f1", "judge"),
        },
        { requiredKeys: [] },
      ),
    ),
  })
  .map((choice) => choice as RunSpecChoice);

const generatedRun: fc.Arbitrary<GeneratedRun> = fc.record({
  spec,
  tasks: fc.array(
    fc.array(candidate, { minLength: 1, maxLength: 4 }).chain((candidates) =>
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
          { freq: 4 },
        ),
      }),
    ),
    { maxLength: 6 },
  ),
  inputErrors: fc.nat(2),
  plannedModelCallsRecorded: fc.boolean(),
});

const PRICES: PriceTableInput = {
  currency: "USD",
  models: {
    "gen-a": {
      input_per_million: 0.1,
      cached_input_per_million: 0.01,
      cache_write_per_million: 0.125,
      output_per_million: 0.3,
    },
    "gen-b": { input_per_million: 0.2, output_per_million: 0.2 },
    "judge-model": { input_per_million: 0.02 },
  },
};

function runSpecOf(choice: RunSpecChoice): Record<string, unknown> {
  return {
    rules: [],
    ...(choice.selection !== null && {
      selection: { verifier: "judge", check: "f1", threshold: choice.selection.threshold },
    }),
    ...(choice.pass !== null && { pass: { threshold: 0.5, scorers: {}, ...choice.pass } }),
  };
}

function scoreRow(runId: string, sampleId: string, scorer: string, v: Value) {
  return {
    runId,
    sampleId,
    scorer,
    criterion: "",
    repetition: 0,
    rule: "default",
    status: typeof v === "number" ? ("scored" as const) : ("unscored" as const),
    value: typeof v === "number" ? v : null,
    reason: typeof v === "number" ? null : "overflow",
    detail: null,
  };
}

async function seed(db: TestStore, runId: string, run: GeneratedRun): Promise<void> {
  const { store } = db;
  await store.startRun({
    id: runId,
    name: "nightly",
    spec: runSpecOf(run.spec),
    transport: "local",
  });
  const samples: Sample[] = [];
  const results: JobResult[] = [];
  run.tasks.forEach(({ candidates }, t) => {
    candidates.forEach((c, index) => {
      const sampleId = `t${t}#${index}`;
      samples.push(
        sample(sampleId, {
          candidateIndex: index,
          line: 10 * t + index + 1,
          ...(c.label !== null && { label: c.label }),
          ...(c.generator !== null && {
            generator: {
              model: c.generator.model,
              input_tokens: c.generator.input,
              cached_input_tokens: c.generator.cached,
              cache_write_tokens: c.generator.cacheWrite,
              output_tokens: c.generator.output,
            },
          }),
        }),
      );
      if (c.judge !== null) {
        results.push({
          score: scoreRow(runId, sampleId, "judge", c.judge),
          truncations: c.prompts.map(([original, kept], repetition) => ({
            runId,
            sampleId,
            scorer: "judge",
            criterion: "",
            repetition,
            originalTokens: original,
            keptTokens: original === kept ? original : kept === 0 ? 0 : original - kept,
            droppedTokens: original === kept ? 0 : kept === 0 ? original : kept,
            slot: "question",
            policy: "error",
          })),
          usage: [
            {
              runId,
              sampleId,
              role: "verifier",
              scorer: "judge",
              model: "judge-model",
              inputTokens: 100,
              cachedInputTokens: 10,
              cacheWriteTokens: 0,
              outputTokens: 0,
              computeMs: 5,
              device: "cpu",
              prompts: 1,
              forwardPasses: 1,
            },
          ],
        });
      }
      if (c.f1 !== null) {
        results.push({ score: scoreRow(runId, sampleId, "f1", c.f1), truncations: [], usage: [] });
      }
    });
  });
  await store.insertSamples(runId, samples);
  await store.writeResults(results);
  if (run.plannedModelCallsRecorded) {
    const modelResults = results.filter((r) => r.score.scorer === "judge").length;
    await store.setPlanned(runId, { results: results.length, modelResults });
  }
  await store.insertInputErrors(
    runId,
    Array.from({ length: run.inputErrors }, (_, i) => ({
      file: "data.jsonl",
      line: 1000 + i,
      field: "answer",
      message: "expected a string",
    })),
  );
  if (run.spec.selection !== null) {
    const records = run.tasks.flatMap(({ candidates, selection }, t): SelectionRecord[] =>
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
    await storeSelections(store, runId, records);
  }
  await store.finishRun(runId);
  await writeRollups(driverOf(store), runId);
}

/** The pass threshold of a scorer under the generated spec, worked out apart from the store. */
function thresholdOf(choice: RunSpecChoice, scorer: string): number {
  if (choice.selection !== null && scorer === "f1") return choice.selection.threshold;
  return choice.pass?.scorers?.[scorer] ?? choice.pass?.threshold ?? 0.5;
}

/** Solved tasks of a run without selection, from the generated data alone. */
function expectedSolvedByRule(run: GeneratedRun): number {
  const deciding = run.spec.pass?.solved_by;
  return run.tasks.filter(({ candidates }) => {
    const first = candidates[0] as CandidateSpec;
    const values = (["f1", "judge"] as const)
      .filter((scorer) => deciding === undefined || scorer === deciding)
      .filter((scorer) => first[scorer] !== null)
      .map((scorer) => ({ scorer, v: first[scorer] }));
    return (
      values.length > 0 &&
      values.every(({ scorer, v }) => typeof v === "number" && v >= thresholdOf(run.spec, scorer))
    );
  }).length;
}

async function rows(db: TestStore, sql: string, params: unknown[]) {
  return (await runnerOf(driverOf(db.store)).query<Record<string, unknown>>(sql, params)).rows;
}

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const close = (a: number | null, b: number | null) =>
  a === null || b === null ? expect(a).toBe(b) : expect(a).toBeCloseTo(b, 9);

async function expectViewsMatch(db: TestStore, runId: string, run: GeneratedRun): Promise<void> {
  const runner = runnerOf(driverOf(db.store));
  const { report } = await reportBundle(runner, runId, {
    prices: { currency: "USD", models: PRICES.models } as never,
  });
  const [overview] = await rows(db, "SELECT * FROM analyst_runs WHERE run_id = $1", [runId]);
  expect(overview).toMatchObject({ status: "completed", rolled_up: true });
  expect(n(overview?.samples)).toBe(report.samples);
  expect(n(overview?.tasks)).toBe(report.tasks);
  expect(n(overview?.input_errors)).toBe(run.inputErrors);
  expect(new Date(overview?.started_at as string).toISOString()).toBe(report.run.startedAt);
  expect(n(overview?.solved)).toBe(report.solved?.solved);
  if (run.spec.selection === null) {
    expect(report.solved?.decidedBy).toBe("pass_rule");
    expect(report.solved?.solved).toBe(expectedSolvedByRule(run));
  } else {
    expect(report.solved?.solved).toBe(report.accuracy.selected.count);
  }

  await expectScorerResults(db, runId, run, report);
  await expectCost(db, runId, report);
  // A run that planned no model call spent nothing on verification; unrecorded, it is unknown.
  const judged = run.tasks.some(({ candidates }) => candidates.some((c) => c.judge !== null));
  if (!judged) {
    const [cost] = await rows(db, "SELECT * FROM analyst_cost_per_solved WHERE run_id = $1", [
      runId,
    ]);
    const expected = run.plannedModelCallsRecorded ? 0 : null;
    expect(report.cost?.verification ?? null).toBe(expected);
    expect(n(cost?.verification_cost)).toBe(expected);
  }

  const selection = await rows(db, "SELECT * FROM analyst_selection WHERE run_id = $1", [runId]);
  if (run.spec.selection === null) expect(selection).toEqual([]);
  else {
    const [s] = selection;
    expect([n(s?.pass1), n(s?.selected), n(s?.oracle), n(s?.counted)]).toEqual([
      report.accuracy.pass1.count,
      report.accuracy.selected.count,
      report.accuracy.oracle.count,
      report.accuracy.pass1.of,
    ]);
    close(n(s?.selected_rate), report.accuracy.selected.rate);
  }

  const [trend] = await rows(db, "SELECT * FROM analyst_run_trend WHERE run_id = $1", [runId]);
  close(n(trend?.truncation_rate), report.truncation.overall.rate);
  close(n(trend?.unscored_rate), report.unscored.unscored.rate);
  close(
    n(trend?.solved_rate),
    report.tasks === 0 ? null : (report.solved?.solved ?? 0) / report.tasks,
  );

  const truncated = await rows(db, "SELECT * FROM analyst_truncations WHERE run_id = $1", [runId]);
  const calls = report.truncation.overall.of;
  expect(truncated.length).toBe(report.truncation.overall.count + report.truncation.refused.count);
  expect(truncated.filter((t) => t.refused === true).length).toBe(report.truncation.refused.count);
  expect(calls).toBeGreaterThanOrEqual(truncated.length);
  for (const t of truncated) {
    const [task, index] = String(t.sample_id).slice(1).split("#").map(Number);
    expect(n(t.line)).toBe(10 * (task as number) + (index as number) + 1);
  }
}

async function expectScorerResults(
  db: TestStore,
  runId: string,
  run: GeneratedRun,
  report: RunReport,
): Promise<void> {
  const results = await rows(
    db,
    "SELECT * FROM analyst_scorer_results WHERE run_id = $1 ORDER BY scorer",
    [runId],
  );
  expect(
    results.map((r) => ({
      scorer: r.scorer,
      scored: n(r.scored),
      unscored: n(r.unscored),
      passed: n(r.passed),
      rule: r.pass_rule,
    })),
  ).toEqual(
    (report.scorerPasses ?? []).map((p) => ({
      scorer: p.scorer,
      scored: p.scored,
      unscored: p.unscored,
      passed: p.passed.count,
      rule: p.rule,
    })),
  );
  for (const r of results) {
    const scorer = r.scorer as "f1" | "judge";
    const values = run.tasks
      .flatMap((t) => t.candidates)
      .flatMap((c) => (typeof c[scorer] === "number" ? [c[scorer] as number] : []));
    const threshold = thresholdOf(run.spec, scorer);
    expect(r.pass_rule).toBe(`value >= ${threshold}`);
    expect(n(r.passed)).toBe(values.filter((v) => v >= threshold).length);
    const mean = report.scorerMeans.find((m) => m.scorer === scorer)?.mean ?? null;
    close(n(r.mean_value), mean);
    close(n(r.pass_rate), values.length === 0 ? null : (n(r.passed) ?? 0) / values.length);
  }
}

async function expectCost(db: TestStore, runId: string, report: RunReport): Promise<void> {
  const [cost] = await rows(db, "SELECT * FROM analyst_cost_per_solved WHERE run_id = $1", [runId]);
  expect(n(cost?.solved)).toBe(report.cost?.solvedTasks);
  close(n(cost?.cost_usd), report.cost?.total ?? null);
  close(n(cost?.generation_cost), report.cost?.generation ?? null);
  close(n(cost?.cost_per_solved_usd), report.cost?.perSolvedTask.total ?? null);
}

describe.each(DRIVER_NAMES)("analyst views on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
    // In force long before any test run starts.
    await importPrices(driverOf(db.store), { currency: "USD", models: PRICES.models } as never, {
      effectiveFrom: new Date("2000-01-01T00:00:00Z"),
      source: "test",
    });
  });
  afterAll(() => db?.dispose());

  it("give the report's own figures for any run", async () => {
    await fc.assert(
      fc.asyncProperty(generatedRun, async (run) => {
        const runId = `run-${randomUUID()}`;
        await seed(db, runId, run);
        await expectViewsMatch(db, runId, run);
      }),
      { numRuns: driver === "pglite" ? 12 : 25 },
    );
  });

  it("price a run by the version in force when it started", async () => {
    const run: GeneratedRun = {
      spec: { selection: null, pass: null },
      tasks: [
        {
          candidates: [
            {
              label: true,
              judge: 1,
              f1: 1,
              generator: { model: "gen-a", input: 1_000_000, cached: 0, cacheWrite: 0, output: 0 },
              prompts: [],
            },
          ],
          selection: null,
        },
      ],
      inputErrors: 0,
      plannedModelCallsRecorded: true,
    };
    const before = `before-${randomUUID()}`;
    await seed(db, before, run);
    const [{ now }] = (await rows(db, "SELECT now() AS now", [])) as [{ now: unknown }];
    // A price change that takes effect after the first run started and before the second.
    const raised = {
      currency: "USD",
      models: { ...PRICES.models, "gen-a": { input_per_million: 5 } },
    };
    const changeAt = new Date(new Date(now as string).getTime() + 1000);
    const { version } = await importPrices(driverOf(db.store), raised as never, {
      effectiveFrom: changeAt,
      source: "raise.yaml",
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = `after-${randomUUID()}`;
    await seed(db, after, run);
    const cost = await rows(
      db,
      "SELECT run_id, price_version, cost_usd FROM analyst_cost_per_solved WHERE run_id = ANY($1)",
      [[before, after]],
    );
    const byRun = new Map(cost.map((r) => [r.run_id, r]));
    // 1M uncached input tokens of gen-a plus the verifier's 100 + 10 cached at 0.02/M.
    const verifier = (110 * 0.02) / 1_000_000;
    expect(n(byRun.get(before)?.cost_usd)).toBeCloseTo(0.1 + verifier, 12);
    expect(n(byRun.get(after)?.cost_usd)).toBeCloseTo(5 + verifier, 12);
    expect(n(byRun.get(after)?.price_version)).toBe(version);
    expect(n(byRun.get(before)?.price_version)).toBe(version - 1);
  });
});
