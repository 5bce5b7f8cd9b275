import { randomUUID } from "node:crypto";
import type { JobResult, Sample, SelectionRecord } from "@assay/core";
import { PrunedRunError } from "@assay/core/errors";
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
import { RejectedRowError } from "../src/rejected-row-error.js";
import type { Store } from "../src/store.js";
import { writeIsolating } from "../src/write-isolating.js";
import { sample, scored, unscored } from "./fixtures.js";

// `Store.pruneRuns` over generated run sets: which runs it drops (start times, --keep-last,
// --older-than, unfinished runs), that every run's report and summary read the same
// before and after, and that a pruned run refuses whatever would read its raw rows.

interface RunPlan {
  /** Per task, per candidate: the judge's value or an unscored reason, and the label. */
  tasks: { value: number | "overflow"; label: boolean }[][];
  finished: boolean;
  /** Hours before now the run started. */
  ageHours: number;
}

const candidate = fc.record({
  value: fc.oneof(fc.constantFrom(0, 0.25, 0.5, 0.75, 1), fc.constant("overflow" as const)),
  label: fc.boolean(),
});
const runPlan: fc.Arbitrary<RunPlan> = fc.record({
  tasks: fc.array(fc.array(candidate, { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 4,
  }),
  finished: fc.boolean(),
  ageHours: fc.integer({ min: 0, max: 24 * 400 }),
});
const selectionRule = fc.record({
  olderThanHours: fc.option(fc.integer({ min: 0, max: 24 * 400 }), { nil: undefined }),
  keepLast: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
});

/** Stores the run as the pipeline does, and rolls it up when it finished. */
async function seed(store: Store, series: string, plan: RunPlan): Promise<string> {
  const runId = `night-${randomUUID()}`;
  await store.startRun({ id: runId, name: series, spec: {}, transport: "local" });
  const samples: Sample[] = [];
  const results: JobResult[] = [];
  const selections: SelectionRecord[] = [];
  plan.tasks.forEach((candidates, t) => {
    candidates.forEach((c, index) => {
      const id = `t${t}#${index}`;
      samples.push(sample(id, { candidateIndex: index, line: t + 1, label: c.label }));
      results.push({
        score:
          c.value === "overflow"
            ? unscored(runId, id, "judge", "overflow")
            : scored(runId, id, "judge", c.value),
        truncations: [],
        usage: [],
      });
    });
    selections.push({
      taskId: `t${t}`,
      method: "best_of_n",
      candidates: candidates.length,
      selectedIndex: 0,
      selectedSampleId: `t${t}#0`,
      tie: false,
      discreteTie: null,
      tieBreak: null,
      selectedCorrect: candidates[0]?.label ?? null,
      firstCorrect: candidates[0]?.label ?? null,
      anyCorrect: candidates.some((c) => c.label),
      detail: {},
    });
  });
  await store.insertSamples(runId, samples);
  await store.writeResults(results);
  await storeSelections(store, runId, selections);
  await queryRows(
    store,
    `UPDATE runs SET created_at = now() - interval '${plan.ageHours} hours' WHERE id = '${runId}'`,
  );
  if (plan.finished) {
    await store.finishRun(runId);
    await store.writeRollups(runId);
  }
  return runId;
}

/** What a user sees of a run: its report (with the trend over its series) and summary. */
async function figures(store: Store, runId: string) {
  const { trend, ...bundle } = await store.reportBundle(runId);
  return { bundle, trend, summary: await store.runSummary(runId) };
}

describe.each(DRIVER_NAMES)("prune on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("drops the chosen finished runs' raw rows and leaves every run's figures as they were", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(runPlan, { minLength: 1, maxLength: 5 }),
        selectionRule,
        async (plans, rule) => {
          const { store } = db;
          const series = `series-${randomUUID()}`;
          const ids: string[] = [];
          for (const plan of plans) ids.push(await seed(store, series, plan));
          const before = new Map<string, Awaited<ReturnType<typeof figures>>>();
          for (const id of ids) before.set(id, await figures(store, id));

          const selection = {
            ...(rule.olderThanHours !== undefined && {
              startedBefore: new Date(Date.now() - rule.olderThanHours * 3_600_000 - 60_000),
            }),
            ...(rule.keepLast !== undefined && { keepLast: rule.keepLast }),
          };
          const expected = await expectedByRule(store, selection);
          const outcome = await store.pruneRuns(selection, { dryRun: false });

          // Exactly the finished, rolled-up runs the rule names, of every run in the store;
          // the unfinished ones it names are listed as kept.
          expect(new Set(outcome.pruned.map((r) => r.runId))).toEqual(expected.prunable);
          expect(new Set(outcome.skipped.map((r) => r.runId))).toEqual(expected.unfinished);
          for (const id of ids) {
            const pruned = expected.prunable.has(id);
            expect(await partitionsOf(store, id)).toBe(pruned ? 0 : 6);
            expect((await store.getRun(id))?.prunedAt != null).toBe(pruned);
            // Pruned or kept, the report, its trend and the summary read the same.
            expect(await figures(store, id), id).toEqual(before.get(id));
          }
        },
      ),
      { numRuns: driver === "pglite" ? 8 : 15 },
    );
  });

  it("refuses to export, show, select again, roll up again or reopen a pruned run", async () => {
    const { store } = db;
    const runId = await seed(store, `series-${randomUUID()}`, {
      tasks: [[{ value: 1, label: true }], [{ value: 0, label: false }]],
      finished: true,
      ageHours: 24 * 1000,
    });
    const outcome = await store.pruneRuns({ keepLast: 0 }, { dryRun: false });
    expect(outcome.pruned.map((r) => r.runId)).toContain(runId);
    const refusals: [string, () => Promise<unknown>][] = [
      ["exported", () => drain(store.exportScores(runId))],
      ["exported", () => drain(store.exportRows(runId, "samples"))],
      ["shown sample by sample", () => store.sampleRecord(runId, "t0#0")],
      ["selected again", () => storeSelections(store, runId, [])],
      ["rolled up again", () => store.writeRollups(runId)],
      ["reopened", () => store.dropRollups(runId)],
    ];
    for (const [what, attempt] of refusals) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error, what).toBeInstanceOf(PrunedRunError);
      expect((error as Error).message).toMatch(
        new RegExp(`Run "${runId}" cannot be ${what}: its raw rows were pruned on \\d{4}-`),
      );
      expect((error as Error).message).toContain("Its rollups remain");
    }
    // The refusals changed nothing: the rollups still answer.
    expect(await store.hasRollups(runId)).toBe(true);
  });

  it("refuses a write for a run that was never started, naming the run, row by row never", async () => {
    const runId = `never-started-${randomUUID()}`;
    const samples = [sample("t0#0"), sample("t1#0")];
    const failures = await writeIsolating(samples, (part) => db.store.insertSamples(runId, part));
    // The whole batch fails alike (no row is isolated as refused) with what to do.
    expect([...failures.keys()]).toEqual([0, 1]);
    for (const failure of failures.values()) {
      expect(failure).not.toBeInstanceOf(RejectedRowError);
      expect(String(failure)).toContain(`Cannot store rows of run "${runId}"`);
      expect(String(failure)).toContain("never started in this store");
    }
  });
});

async function drain(rows: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of rows) {
    // reading is the point
  }
}

/** What the rule names, worked out from the runs table apart from the store's own query. */
async function expectedByRule(
  store: Store,
  selection: { startedBefore?: Date; keepLast?: number },
): Promise<{ prunable: Set<string>; unfinished: Set<string> }> {
  const rows = (await queryRows(
    store,
    `SELECT id, created_at, finished_at IS NOT NULL AS finished, pruned_at IS NOT NULL AS pruned
     FROM runs ORDER BY created_at DESC, id DESC`,
  )) as { id: string; created_at: Date | string; finished: boolean; pruned: boolean }[];
  // A rule without an age or a count names no run by age (it may still name abandoned runs
  // or runs by id, which these runs are not): an empty selection never prunes everything.
  const byAge = selection.keepLast !== undefined || selection.startedBefore !== undefined;
  const named = rows.filter(
    (row, newest) =>
      byAge &&
      !row.pruned &&
      (selection.keepLast === undefined || newest >= selection.keepLast) &&
      (selection.startedBefore === undefined || new Date(row.created_at) < selection.startedBefore),
  );
  return {
    prunable: new Set(named.filter((row) => row.finished).map((row) => row.id)),
    unfinished: new Set(named.filter((row) => !row.finished).map((row) => row.id)),
  };
}
