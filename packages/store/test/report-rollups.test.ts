import { randomUUID } from "node:crypto";
import type { CountedDifferences, JobResult, Sample, SelectionRecord } from "@assay/core";
import { storeSelections } from "@assay/test-support/store-selections";
import {
  DRIVER_NAMES,
  openTestStore,
  partitionsOf,
  queryRows,
  type TestStore,
} from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import {
  type PairedDifferences,
  pairedDifferences,
  runComparison,
  runnerOf,
  sliceReport,
  writeRollups,
} from "../src/reports/index.js";
import { sample, scored, unscored } from "./fixtures.js";

// `report --compare` and `report --by` read task and slice rollups once a run is rolled up
// (migration 0020), and a run's comparison with its predecessor is counted when it
// completes (0023), and with its name's pinned baseline (0024): for generated pairs of runs, each rolled-up path gives exactly what the
// raw rows gave before, and `prune` drops the task rollups with the raw partitions.

interface CandidatePlan {
  /** The judge's value (a coarse grid, so equal differences and ties happen), or unscored. */
  judge: number | "overflow";
  /** The exact check's value; absent: not run. */
  exact: 0 | 1 | null;
  label: boolean | null;
  /** metadata.kind (declared in the spec) and metadata.group (not); null: no such key. */
  kind: string | null;
  group: string | null;
  /** A verifier prompt: [tokens before fitting, tokens kept] (kept 0: refused). */
  prompt: [number, number] | null;
}

interface TaskPlan {
  /** Per run: its candidates of the task (none: the task is not in that run). */
  candidates: [CandidatePlan[], CandidatePlan[]];
  picked: boolean | null;
}

const candidate: fc.Arbitrary<CandidatePlan> = fc.record({
  judge: fc.oneof(
    fc.integer({ min: 0, max: 4 }).map((v) => v / 4),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.constant("overflow" as const),
  ),
  exact: fc.constantFrom(0 as const, 1 as const, null),
  label: fc.constantFrom(true, false, null),
  kind: fc.constantFrom("math", "code", null),
  group: fc.constantFrom("a", "b", null),
  prompt: fc.option(fc.constantFrom<[number, number]>([800, 800], [5000, 3000], [40_000, 0])),
});

const candidates = fc.array(candidate, { maxLength: 3 });
const task: fc.Arbitrary<TaskPlan> = fc.record({
  candidates: fc.tuple(candidates, candidates),
  picked: fc.constantFrom(true, false, null),
});
const pair = fc.record({
  tasks: fc.array(task, { maxLength: 6 }),
  withSelection: fc.boolean(),
});

const PRICES = {
  currency: "USD",
  models: { "judge-model": { input_per_million: 1, output_per_million: 2 } },
};

/** Stores one side of the generated tasks as a run whose spec declares metadata.kind. */
async function seed(
  db: TestStore,
  side: 0 | 1,
  tasks: readonly TaskPlan[],
  withSelection: boolean,
  name = "nightly",
): Promise<string> {
  const runId = `run-${randomUUID()}`;
  const spec = {
    fields: { metadata: ["meta.kind"] },
    ...(withSelection && { selection: { verifier: "judge" } }),
  };
  await db.store.startRun({ id: runId, name, spec, transport: "local" });
  const samples: Sample[] = [];
  const results: JobResult[] = [];
  const selections: SelectionRecord[] = [];
  tasks.forEach((plan, t) => {
    const mine = plan.candidates[side];
    mine.forEach((c, index) => {
      const sampleId = `t${t}#${index}`;
      samples.push(
        sample(sampleId, {
          candidateIndex: index,
          line: t + 1,
          metadata: {
            ...(c.kind !== null && { kind: c.kind }),
            ...(c.group !== null && { group: c.group }),
          },
          ...(c.label !== null && { label: c.label }),
        }),
      );
      const key = { runId, sampleId, criterion: "", repetition: 0, rule: "default" };
      const judge = c.judge;
      results.push({
        score:
          judge === "overflow"
            ? unscored(runId, sampleId, "judge", "overflow")
            : scored(runId, sampleId, "judge", judge),
        truncations:
          c.prompt === null
            ? []
            : [
                {
                  ...key,
                  scorer: "judge",
                  originalTokens: c.prompt[0],
                  keptTokens: c.prompt[1],
                  droppedTokens: c.prompt[0] - c.prompt[1],
                  slot: c.prompt[1] < c.prompt[0] ? "question" : "",
                  policy: "error",
                },
              ],
        usage:
          c.prompt === null
            ? []
            : [
                {
                  runId,
                  sampleId,
                  role: "verifier",
                  scorer: "judge",
                  model: "judge-model",
                  inputTokens: c.prompt[1],
                  cachedInputTokens: 0,
                  cacheWriteTokens: 0,
                  outputTokens: 3,
                  computeMs: null,
                  device: "cpu",
                  prompts: 1,
                  forwardPasses: 1,
                },
              ],
      });
      if (c.exact !== null) {
        results.push({
          score: scored(runId, sampleId, "exact", c.exact),
          truncations: [],
          usage: [],
        });
      }
    });
    if (withSelection && mine.length > 0) {
      selections.push({
        taskId: `t${t}`,
        method: "best_of_n",
        candidates: mine.length,
        selectedIndex: plan.picked === null ? null : 0,
        selectedSampleId: plan.picked === null ? null : `t${t}#0`,
        tie: mine.length > 1 && mine[0]?.judge === mine[1]?.judge,
        discreteTie: null,
        tieBreak: null,
        selectedCorrect: plan.picked,
        firstCorrect: mine[0]?.label ?? null,
        anyCorrect: mine.some((c) => c.label === true) ? true : (mine[0]?.label ?? null),
        detail: {},
      });
    }
  });
  if (samples.length > 0) await db.store.insertSamples(runId, samples);
  if (results.length > 0) await db.store.writeResults(results);
  if (withSelection) await storeSelections(db.store, runId, selections);
  return runId;
}

/** Differences summed from the first distinct one on, as for a continuous score of many tasks. */
const EVERY = { distinct: 0, tasks: 0 };

/**
 * Each figure summed into one row holds what its counted differences add up to: its
 * tasks, their mean difference and sum of squares, and the two runs' sums.
 */
async function expectSummed(summed: PairedDifferences[], counted: PairedDifferences[]) {
  expect(summed.map((d) => [d.metric, d.kind])).toEqual(counted.map((d) => [d.metric, d.kind]));
  summed.forEach(({ counted: got }, i) => {
    const want = counted[i]?.counted as CountedDifferences;
    const n = want.differences.reduce((sum, d) => sum + d.count, 0);
    const total = want.differences.reduce((sum, d) => sum + d.value * d.count, 0);
    const squares = want.differences.reduce((sum, d) => sum + d.value ** 2 * d.count, 0);
    expect(got.differences).toHaveLength(1);
    expect(got.differences[0]?.count).toBe(n);
    expect(got.differences[0]?.value).toBeCloseTo(total / n, 9);
    expect(got.squareSum).toBeCloseTo(squares, 9);
    expect(got.currentSum).toBeCloseTo(want.currentSum, 9);
    expect(got.baselineSum).toBeCloseTo(want.baselineSum, 9);
  });
}

describe.each(DRIVER_NAMES)("report rollups on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("give --compare and --by exactly what the raw rows give, and say when raw rows were read", async () => {
    await fc.assert(
      fc.asyncProperty(pair, async ({ tasks, withSelection }) => {
        const runner = runnerOf(driverOf(db.store));
        // Each pair a night of its own: b's predecessor is a.
        const night = `nightly-${randomUUID()}`;
        const [a, b] = [
          await seed(db, 0, tasks, withSelection, night),
          await seed(db, 1, tasks, withSelection, night),
        ];
        const raw = await pairedDifferences(runner, a, b);
        const rawComparison = await runComparison(runner, a, b, { resamples: 200 });
        const rawMorning = await runComparison(runner, b, a, { resamples: 200 });
        const rawKind = await sliceReport(runner, a, "metadata.kind", { prices: PRICES });
        const rawGroup = await sliceReport(runner, a, "metadata.group", { prices: PRICES });
        expect(rawKind.fromRawRows).toBe("run has no slice rollups");

        await expectSummed(await pairedDifferences(runner, a, b, "raw rows", EVERY), raw);

        await writeRollups(driverOf(db.store), a);
        await writeRollups(driverOf(db.store), b);
        await expectSummed(await pairedDifferences(runner, a, b, "task rollups", EVERY), raw);

        // Both rolled up: the comparison pairs task rollups, with the same counts and sums.
        expect(await pairedDifferences(runner, a, b)).toEqual(raw);
        expect(await pairedDifferences(runner, a, b, "task rollups")).toEqual(raw);
        expect(await runComparison(runner, a, b, { resamples: 200 })).toEqual(rawComparison);
        // b was compared with a when it completed: the morning's report reads those counts.
        await expect(pairedDifferences(runner, a, b, "comparison rollups")).rejects.toThrow(
          /no comparison with/,
        );
        expect(await runComparison(runner, b, a, { resamples: 200 })).toEqual(rawMorning);
        expect(await pairedDifferences(runner, b, a, "comparison rollups")).toEqual(
          await pairedDifferences(runner, b, a, "raw rows"),
        );
        // A declared field reads the slice rollups; another one raw rows, and says so.
        const { fromRawRows: _, ...kindFigures } = rawKind;
        expect(await sliceReport(runner, a, "metadata.kind", { prices: PRICES })).toEqual(
          kindFigures,
        );
        expect(await sliceReport(runner, a, "metadata.group", { prices: PRICES })).toEqual({
          ...rawGroup,
          fromRawRows: "field not declared in fields.metadata",
        });
      }),
      { numRuns: driver === "pglite" ? 8 : 12 },
    );
  });

  it("forget a comparison when its baseline's rows change, and compare with them as they are now", async () => {
    const half: CandidatePlan = {
      judge: 0.5,
      exact: 1,
      label: true,
      kind: "math",
      group: null,
      prompt: null,
    };
    const tasks: TaskPlan[] = [{ candidates: [[half], [half]], picked: true }];
    const night = `nightly-${randomUUID()}`;
    const a = await seed(db, 0, tasks, true, night);
    // A run of another name between them is no predecessor of b.
    await seed(db, 0, tasks, true, `other-${randomUUID()}`);
    const b = await seed(db, 1, tasks, true, night);
    for (const run of [a, b]) {
      await db.store.finishRun(run);
      await db.store.writeRollups(run);
    }
    const comparedWith = async () =>
      queryRows(db.store, "SELECT compared_with FROM run_rollups WHERE run_id = $1", [b]);
    expect(await comparedWith()).toEqual([{ compared_with: a }]);
    const runner = runnerOf(driverOf(db.store));
    const judge = async () =>
      (await pairedDifferences(runner, b, a)).find((d) => d.metric === "judge")?.counted;
    expect((await judge())?.differences).toEqual([{ value: 0, count: 1 }]);

    // The baseline resumed: a second candidate of t0 the judge scores 0, then completed
    // again. a's mean for t0 falls to 0.25, so b is now 0.25 above it.
    await db.store.dropRollups(a);
    await db.store.insertSamples(a, [sample("t0#1", { candidateIndex: 1, line: 1 })]);
    await db.store.writeResults([
      { score: scored(a, "t0#1", "judge", 0), truncations: [], usage: [] },
    ]);
    await db.store.writeRollups(a);

    expect(await comparedWith()).toEqual([{ compared_with: null }]);
    expect((await judge())?.differences).toEqual([{ value: 0.25, count: 1 }]);
    expect(await pairedDifferences(runner, b, a)).toEqual(
      await pairedDifferences(runner, b, a, "raw rows"),
    );
    // b completed again (a resume of its own) counts it against a as a is now.
    await db.store.writeRollups(b);
    expect(await comparedWith()).toEqual([{ compared_with: a }]);
    expect((await judge())?.differences).toEqual([{ value: 0.25, count: 1 }]);
  });

  it("count each later run's comparison with its name's pinned baseline, as the raw rows pair them", async () => {
    const [plan] = fc.sample(pair, { numRuns: 1, seed: 11 });
    const tasks = plan?.tasks ?? [];
    const night = `nightly-${randomUUID()}`;
    const complete = async (side: 0 | 1) => {
      const run = await seed(db, side, tasks, true, night);
      await db.store.finishRun(run);
      await db.store.writeRollups(run);
      return run;
    };
    const compared = async (run: string) =>
      queryRows(
        db.store,
        "SELECT compared_with, compared_with_pinned FROM run_rollups WHERE run_id = $1",
        [run],
      );
    const runner = runnerOf(driverOf(db.store));
    const countedAsRaw = async (run: string, baseline: string) => {
      const raw = await pairedDifferences(runner, run, baseline, "raw rows");
      // The generated night pairs tasks, so there are figures to get wrong.
      expect(raw.length).toBeGreaterThan(0);
      expect(await pairedDifferences(runner, run, baseline, "comparison rollups")).toEqual(raw);
    };

    const pins = async (run: string, previous: string | null) =>
      expect(await db.store.pinBaseline(run)).toEqual({ state: "pinned", name: night, previous });

    const unfinished = await seed(db, 0, tasks, true, night);
    expect(await db.store.pinBaseline(unfinished)).toEqual({ state: "not rolled up" });
    // A run whose spec names none has no runs of its name to be compared with.
    const unnamed = `run-${randomUUID()}`;
    await db.store.startRun({ id: unnamed, spec: {}, transport: "local" });
    await db.store.finishRun(unnamed);
    await db.store.writeRollups(unnamed);
    expect(await db.store.pinBaseline(unnamed)).toEqual({ state: "unnamed" });
    const release = await complete(0);
    await pins(release, null);
    // Pinned and the run before: counted once.
    const first = await complete(1);
    expect(await compared(first)).toEqual([{ compared_with: release, compared_with_pinned: null }]);
    // Two runs on: counted with both, each as the raw rows pair it.
    const second = await complete(0);
    expect(await compared(second)).toEqual([
      { compared_with: first, compared_with_pinned: release },
    ]);
    await countedAsRaw(second, first);
    await countedAsRaw(second, release);
    // The pinned run completing again is not compared with itself.
    await db.store.writeRollups(release);
    expect(await compared(release)).toEqual([{ compared_with: null, compared_with_pinned: null }]);

    // A resume of the baseline forgets what was counted against it.
    await db.store.dropRollups(release);
    expect(await compared(second)).toEqual([{ compared_with: first, compared_with_pinned: null }]);
    await expect(pairedDifferences(runner, second, release, "comparison rollups")).rejects.toThrow(
      /no comparison with/,
    );
    await db.store.writeRollups(release);

    // Another pin replaces it; after an unpin runs are compared with the run before only.
    await pins(first, release);
    const third = await complete(1);
    expect(await compared(third)).toEqual([{ compared_with: second, compared_with_pinned: first }]);
    await countedAsRaw(third, first);
    expect(await db.store.unpinBaseline(first)).toBe(night);
    expect(await db.store.unpinBaseline(first)).toBeNull();
    const fourth = await complete(0);
    expect(await compared(fourth)).toEqual([{ compared_with: third, compared_with_pinned: null }]);

    // An abandoned or pruned run is no baseline.
    await db.store.abandonRun(unfinished);
    expect(await db.store.pinBaseline(unfinished)).toEqual({ state: "abandoned" });
    await db.store.pruneRuns({ runIds: [release] }, { dryRun: false });
    expect(await db.store.pinBaseline(release)).toEqual({ state: "pruned" });
  });

  it("are dropped by prune with the run's raw partitions", async () => {
    const [plan] = fc.sample(pair, { numRuns: 1, seed: 3 });
    const runId = await seed(db, 0, plan?.tasks ?? [], true);
    await db.store.finishRun(runId);
    await db.store.writeRollups(runId);
    const partition = await queryRows(
      db.store,
      "SELECT to_regclass(assay_run_partition('task_rollup_chunks', $1)) IS NOT NULL AS present",
      [runId],
    );
    expect(partition).toEqual([{ present: true }]);
    expect(await partitionsOf(db.store, runId)).toBe(6);

    await db.store.pruneRuns({ runIds: [runId] }, { dryRun: false });
    expect(await partitionsOf(db.store, runId)).toBe(0);
    expect(
      await queryRows(
        db.store,
        "SELECT count(*)::int AS n FROM task_rollup_chunks WHERE run_id = $1",
        [runId],
      ),
    ).toEqual([{ n: 0 }]);
  });
});
