import { randomUUID } from "node:crypto";
import type { Sample, ScoreRow, TaskCandidates } from "@assay/core";
import { type PairJudgment, pairPrompts, selectionRecordOf, selectTasks } from "@assay/selection";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { runnerOf } from "@assay/store/reports";
import { selectPerTask } from "@assay/test-support/per-task-selection";
import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SelectForRunOptions, selectForRun } from "../../src/index.js";
import { insertCandidateSamples } from "./support/candidate-samples.js";
import { DRIVERS, type TestStore } from "./support/stores.js";

/** One verifier or check row: a value, or unscored. */
type Outcome = number | "unscored";

interface GeneratedCandidate {
  label: boolean | undefined;
  /** Verifier rows, one per criterion (none: the verifier never scored it). */
  judge: Outcome[];
  /** The score distribution kept with each scored verifier row, row by row. */
  distributions: (number[] | undefined)[];
  /** Row by row: stored without its discrete level, as rows written before that column. */
  legacy: boolean[];
  /** How the detail holds it: as the verifier writes it, among values that hold none, or in a shape that holds none. */
  shape: DetailShape;
  exact: Outcome | undefined;
}

// A detail is free-form JSON: only arrays of objects at each level hold a distribution.
const SHAPES = {
  verifier: (name: string, d: number[]) => ({
    criteria: [{ name, variants: [{ distribution: d }] }],
  }),
  beside: (name: string, d: number[]) => ({
    criteria: [7, { name }, { name, variants: [[{ distribution: d }], { distribution: d }] }],
  }),
  criteriaObject: (name: string, d: number[]) => ({
    criteria: { name, variants: [{ distribution: d }] },
  }),
  variantsObject: (name: string, d: number[]) => ({
    criteria: [{ name, variants: { distribution: d } }],
  }),
  distributionObject: (name: string, d: number[]) => ({
    criteria: [{ name, variants: [{ distribution: { 0: d[0] } }] }],
  }),
};
type DetailShape = keyof typeof SHAPES;

// Values on a 1/4 grid: ties at the top are common and means are exact in binary.
const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 4 }).map((v) => v / 4) },
  { weight: 1, arbitrary: fc.constant("unscored" as const) },
);

const candidate: fc.Arbitrary<GeneratedCandidate> = fc.record({
  label: fc.option(fc.boolean(), { nil: undefined }),
  // Up to three rows with levels such as 1/3: their mean depends on the order of the sum.
  judge: fc.array(outcome, { minLength: 0, maxLength: 3 }),
  // Arrays of fewer than two values hold no level: the writer and the read both skip them.
  distributions: fc.array(
    fc.option(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 4 }), {
      nil: undefined,
    }),
    { minLength: 3, maxLength: 3 },
  ),
  legacy: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  shape: fc.oneof(
    { weight: 4, arbitrary: fc.constant<DetailShape>("verifier") },
    { weight: 1, arbitrary: fc.constantFrom(...(Object.keys(SHAPES) as DetailShape[])) },
  ),
  exact: fc.option(outcome, { nil: undefined }),
});

/** Task ids that collide in prefixes and sort in text order, not insertion order. */
const run = fc.dictionary(
  fc.string({ unit: fc.constantFrom("a", "b", "#", "1"), minLength: 1, maxLength: 3 }),
  fc.array(candidate, { minLength: 1, maxLength: 4 }),
  { minKeys: 1, maxKeys: 10 },
);

const options: fc.Arbitrary<Omit<SelectForRunOptions, "verifierScorer">> = fc.record({
  method: fc.constantFrom("best_of_n" as const, "pivot_tournament" as const),
  k: fc.integer({ min: 1, max: 3 }),
  threshold: fc.constantFrom(0.5, 0.75),
  checkScorer: fc.constantFrom("exact", undefined),
  // Small fetches: tasks cross fetch boundaries, and a fetch can end inside a sample.
  fetchRows: fc.integer({ min: 1, max: 7 }),
});

describe.each(Object.keys(DRIVERS) as (keyof typeof DRIVERS)[])(
  "set-based selection on %s",
  (driver) => {
    let db: TestStore;
    beforeAll(async () => {
      db = await DRIVERS[driver]();
    });
    afterAll(() => db?.dispose());

    it("stores what the per-task reads stored, task for task", async () => {
      await fc.assert(
        fc.asyncProperty(run, options, async (tasks, chosen) => {
          const id = randomUUID();
          await seed(db.store, `new-${id}`, tasks);
          await seed(db.store, `old-${id}`, tasks);
          const selectOptions = { ...chosen, verifierScorer: "judge" };
          const totals = await selectForRun(db.store, `new-${id}`, selectOptions);
          await selectPerTask(db.store, `old-${id}`, selectOptions);

          const stored = await selectionsOf(db.store, `new-${id}`);
          expect(stored).toEqual(await selectionsOf(db.store, `old-${id}`));
          expect(stored.map((s) => s.task_id)).toEqual(Object.keys(tasks).sort());
          expect(totals.tasks).toBe(stored.length);
          expect(totals.ties).toBe(stored.filter((s) => s.tie).length);
        }),
        // The next property compares the same two reads over 40 more runs.
        { numRuns: propertyRuns(15) },
      );
    });

    it("reads a run once in sample id order when its tasks follow that order, else again in task order", async () => {
      const seen = { once: 0, twice: 0 };
      await fc.assert(
        fc.asyncProperty(run, fc.integer({ min: 1, max: 7 }), async (tasks, fetchRows) => {
          const id = randomUUID();
          await seed(db.store, `new-${id}`, tasks);
          await seed(db.store, `old-${id}`, tasks);
          let passes = 0;
          await db.store.replaceSelections(
            `new-${id}`,
            { verifierScorer: "judge" },
            () => {
              passes += 1;
              return (batch) => selectTasks(batch).map(selectionRecordOf);
            },
            { fetchRows },
          );
          await selectPerTask(db.store, `old-${id}`, { verifierScorer: "judge" });
          expect(passes).toBe(tasksFollowSampleOrder(tasks) ? 1 : 2);
          seen[passes === 1 ? "once" : "twice"] += 1;
          expect(await selectionsOf(db.store, `new-${id}`)).toEqual(
            await selectionsOf(db.store, `old-${id}`),
          );
        }),
        {
          numRuns: propertyRuns(12),
          // One run of each read first, whatever the generated runs draw: tasks a and b
          // follow sample id order; a# sorts before a by sample id (a#/0 < a/0), after it
          // by task id.
          examples: [
            [{ a: [verifierOnly(0.5)], b: [verifierOnly(1), verifierOnly(0)] }, 1],
            [{ a: [verifierOnly(0.5), verifierOnly(1)], "a#": [verifierOnly(0.25)] }, 2],
          ],
        },
      );
      // Both reads were taken, so both were compared with the per-task reads.
      expect(seen.once).toBeGreaterThan(0);
      expect(seen.twice).toBeGreaterThan(0);
    });

    it("keeps a task's candidates in index order when their sample ids sort otherwise (t/10 before t/2)", async () => {
      // Twelve candidates, the best at index 2 tied with index 10: sample id order puts
      // t/10 first, candidate order t/2; the tie goes to the lower index.
      const judge = [0.25, 0.5, 1, 0.5, 0.25, 0, 0, 0.5, 0.25, 0.5, 1, 0.75];
      const tasks = {
        t: judge.map((value) => verifierOnly(value)),
      };
      const id = randomUUID();
      await seed(db.store, `new-${id}`, tasks);
      await seed(db.store, `old-${id}`, tasks);
      // The tournament draws its pivots from the candidates in the order it gets them.
      const chosen = { verifierScorer: "judge", method: "pivot_tournament" as const, k: 2 };
      await selectForRun(db.store, `new-${id}`, chosen);
      await selectPerTask(db.store, `old-${id}`, chosen);
      const stored = await selectionsOf(db.store, `new-${id}`);
      expect(stored.map((s) => [s.selected_index, s.tie])).toEqual([[2, true]]);
      expect(stored).toEqual(await selectionsOf(db.store, `old-${id}`));
    });

    it.each([
      ["in sample id order", ["a", "b", "c", "z"], 1],
      ["in sample id order, lines the other way", ["c", "b", "a", "z"], 1],
      ["in task order", ["c", "b", "a", "b"], 2],
    ])(
      "tells apart a task's candidates from single-answer lines, all index 0 (read %s)",
      async (_, ids, expectedPasses) => {
        // Task T's three lines (task_id T, one answer each) are candidate 0 each; task U's
        // sample sorts between them in the last case, so the read goes back to task order.
        const runId = `lines-${randomUUID()}`;
        await db.store.startRun({ id: runId, spec: {}, transport: "local" });
        const line = (id: string, n: number, taskId: string, label: boolean): Sample => ({
          id,
          taskId,
          candidateIndex: 0,
          question: "q",
          answer: id,
          metadata: {},
          line: n,
          label,
        });
        const [first, second, third, other] = ids as [string, string, string, string];
        await db.store.insertSamples(runId, [
          line(`${first}1`, 1, "T", false),
          line(`${second}2`, 2, "T", true),
          line(`${third}3`, 3, "T", true),
          line(`${other}9`, 4, "U", true),
        ]);
        await db.store.writeScores([
          scoreRow(runId, `${first}1`, "judge", "", 0.25),
          scoreRow(runId, `${second}2`, "judge", "", 1),
          scoreRow(runId, `${third}3`, "judge", "", 0.5),
          scoreRow(runId, `${other}9`, "judge", "", 0.5),
        ]);
        let passes = 0;
        const totals = await selectForRun(db.store, runId, { verifierScorer: "judge" });
        await db.store.replaceSelections(runId, { verifierScorer: "judge" }, () => {
          passes += 1;
          return (batch) => selectTasks(batch).map(selectionRecordOf);
        });
        expect(passes).toBe(expectedPasses);
        const [t] = (await selectionsOf(db.store, runId)).filter((s) => s.task_id === "T");
        // The highest score wins, not the last line read; pass@1 is the first line's, whatever
        // order the sample ids sort in.
        expect(t).toMatchObject({
          candidates: 3,
          selected_index: 1,
          selected_sample_id: `${second}2`,
          selected_correct: true,
          first_correct: false,
          any_correct: true,
        });
        expect(totals.selected).toMatchObject({ count: 2, of: 2 });
      },
    );

    it("picks the highest mean verifier score, lowest index on a tie, none when nothing is scored", async () => {
      await fc.assert(
        fc.asyncProperty(run, fc.integer({ min: 1, max: 7 }), async (tasks, fetchRows) => {
          const runId = `pick-${randomUUID()}`;
          await seed(db.store, runId, tasks);
          await selectForRun(db.store, runId, { verifierScorer: "judge", fetchRows });
          const picks = Object.fromEntries(
            (await selectionsOf(db.store, runId)).map((s) => [s.task_id, s.selected_index]),
          );
          expect(picks).toEqual(
            Object.fromEntries(Object.entries(tasks).map(([t, c]) => [t, expectedPick(c)])),
          );
        }),
        { numRuns: propertyRuns(15) },
      );
    });

    it.each([
      ["stored levels", [false, false, false]],
      ["rows stored without levels", [true, true, true]],
      ["some rows stored without levels", [false, true, false]],
    ])(
      "sums a candidate's levels in criterion order, as selection does (%s)",
      async (_, legacy) => {
        // Levels 1, 1 and 1/3 in that order average to exactly 7/9, another candidate's level;
        // summed in another order they miss it by one bit, and the discrete tie is lost.
        const tasks = {
          t: [
            {
              label: true,
              judge: [0.5, 0.5, 0.5],
              distributions: [
                [0, 9],
                [0, 9],
                [0, 9, 0, 0],
              ],
              legacy,
              shape: "verifier" as const,
              exact: undefined,
            },
            {
              label: false,
              judge: [0.5],
              distributions: [[0, 0, 0, 0, 0, 0, 0, 9, 0, 0]],
              legacy,
              shape: "verifier" as const,
              exact: undefined,
            },
          ],
        };
        const id = randomUUID();
        await seed(db.store, `new-${id}`, tasks);
        await seed(db.store, `old-${id}`, tasks);
        await selectForRun(db.store, `new-${id}`, { verifierScorer: "judge" });
        await selectPerTask(db.store, `old-${id}`, { verifierScorer: "judge" });
        const stored = await selectionsOf(db.store, `new-${id}`);
        expect(stored.map((s) => s.discrete_tie)).toEqual([true]);
        expect(stored).toEqual(await selectionsOf(db.store, `old-${id}`));
      },
    );

    it("ranks a judged tournament by the stored pair judgments, looked up batch by batch", async () => {
      const seen = { judged: 0, missing: 0 };
      await fc.assert(
        fc.asyncProperty(
          run,
          fc.integer({ min: 1, max: 7 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 0, max: 1000 }),
          async (tasks, fetchRows, k, salt) => {
            const runId = `judged-${randomUUID()}`;
            await seed(db.store, runId, tasks);
            const plan = { k, seed: salt };
            // Each prompt's stored judgment, or none (a pair the judge has not scored yet).
            const judgments = new Map<string, PairJudgment[]>();
            const rows: ScoreRow[] = [];
            for (const [taskId, candidates] of Object.entries(tasks)) {
              const prompts = pairPrompts(
                taskId,
                candidates.map((_, i) => i),
                plan,
              );
              judgments.set(
                taskId,
                prompts.map((prompt) => {
                  const outcome = pairOutcome(prompt.sampleId, salt);
                  if (outcome !== undefined)
                    rows.push(scoreRow(runId, prompt.sampleId, "pair", "", outcome));
                  const probability = typeof outcome === "number" ? outcome : null;
                  seen[probability === null ? "missing" : "judged"] += 1;
                  return { first: prompt.first, second: prompt.second, probability };
                }),
              );
            }
            if (rows.length > 0) await db.store.writeScores(rows);
            // The candidates as the store reads them, to select from by hand.
            const read: TaskCandidates[] = [];
            await db.store.replaceSelections(runId, { verifierScorer: "judge" }, () => {
              read.length = 0;
              return (batch) => {
                read.push(...batch);
                return [];
              };
            });
            const chosen = { method: "pivot_tournament" as const, ...plan };
            await selectForRun(db.store, runId, {
              ...chosen,
              verifierScorer: "judge",
              judgeScorer: "pair",
              fetchRows,
            });
            const expected = selectTasks(read, chosen, judgments).map(selectionRecordOf);
            const stored = await selectionsOf(db.store, runId);
            expect(stored.map((s) => [s.task_id, s.selected_index, s.detail])).toEqual(
              expected
                .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
                .map((e) => [e.taskId, e.selectedIndex, JSON.parse(JSON.stringify(e.detail))]),
            );
          },
        ),
        { numRuns: propertyRuns(10) },
      );
      // Judgments were found and missed: the lookups were what the picks depended on.
      expect(seen.judged).toBeGreaterThan(0);
      expect(seen.missing).toBeGreaterThan(0);
    });

    it.runIf(driver === "postgres")(
      "closes the connections a pass opened, whether it ends, fails or goes back to task order",
      async () => {
        const runId = `conn-${randomUUID().slice(0, 8)}`;
        // Sample ids `b/0` and `c/0` of task b, `a/...` of task c: task ids go back (b, c, b).
        await db.store.startRun({ id: runId, spec: {}, transport: "local" });
        const sample = (id: string, taskId: string, index: number): Sample => ({
          id,
          taskId,
          candidateIndex: index,
          question: "q",
          answer: id,
          metadata: {},
          line: index + 1,
        });
        await db.store.insertSamples(runId, [
          sample("b/0", "b", 0),
          sample("c/0", "c", 0),
          sample("d/1", "b", 1),
        ]);
        await db.store.writeScores([
          scoreRow(runId, "b/0", "judge", "", 0.5),
          scoreRow(runId, "c/0", "judge", "", 1),
          scoreRow(runId, "d/1", "judge", "", 0.25),
        ]);
        const opened = async () => {
          const { rows } = await runnerOf(driverOf(db.store)).query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
            [`assay selection: ${runId}`],
          );
          return rows[0]?.n ?? 0;
        };
        const closedSoon = async () => {
          for (let tries = 0; tries < 40 && (await opened()) > 0; tries += 1) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return opened();
        };
        const during: number[] = [];
        const passes: string[] = [];
        // The first pass (sample order) looks a pair up, then finds task b again and is undone.
        await db.store.replaceSelections(
          runId,
          { verifierScorer: "judge" },
          () => async (batch, lookup) => {
            passes.push(batch.map((t) => t.taskId).join());
            await lookup("pair", ["b/0>1"]);
            during.push(await opened());
            return selectTasks(batch).map(selectionRecordOf);
          },
          { fetchRows: 1 },
        );
        expect(passes[0]).toBe("b");
        expect(passes.slice(1).sort()).toEqual(["b", "c"]);
        // The read and the lookups each had a connection of their own (the read's is closed
        // once its output has all come, before the last task is chosen).
        expect(during[0]).toBe(2);
        expect(await closedSoon()).toBe(0);

        const failing = db.store.replaceSelections(
          runId,
          { verifierScorer: "judge" },
          () => async () => {
            during.push(await opened());
            throw new Error("selection failed");
          },
        );
        await expect(failing).rejects.toThrow("selection failed");
        expect(during.at(-1)).toBe(1); // the read's, which the failure leaves behind
        expect(await closedSoon()).toBe(0);
        // The pass's own connection went back to the pool usable.
        expect(await selectionCount(db.store, runId)).toBe(2);
      },
    );

    it.runIf(driver === "postgres")(
      "fails the pass cleanly when the server ends its read half way, and the next pass works",
      async () => {
        const runId = `cut-${randomUUID().slice(0, 8)}`;
        // Enough rows that the read is still sending when its first batch is chosen.
        const tasks = Object.fromEntries(
          Array.from({ length: 20_000 }, (_, t) => [
            `t${t}`,
            [0.25, 0.75].map((value) => verifierOnly(value)),
          ]),
        );
        await seed(db.store, runId, tasks);
        await selectForRun(db.store, runId, { verifierScorer: "judge" });
        const before = await selectionsOf(db.store, runId);
        const runner = runnerOf(driverOf(db.store));
        let terminated = 0;
        const cut = db.store.replaceSelections(
          runId,
          { verifierScorer: "judge" },
          () => async (batch) => {
            if (terminated === 0) {
              const { rows } = await runner.query<{ ended: boolean }>(
                `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
                 WHERE application_name = $1`,
                [`assay selection: ${runId}`],
              );
              terminated = rows.filter((r) => r.ended).length;
            }
            return selectTasks(batch).map(selectionRecordOf);
          },
          { fetchRows: 1 },
        );
        await expect(cut).rejects.toThrow(/terminat/i);
        // The fault hit the pass's read, and undid the pass: the earlier picks stand.
        expect(terminated).toBe(1);
        expect(await selectionsOf(db.store, runId)).toEqual(before);
        await selectForRun(db.store, runId, { verifierScorer: "judge" });
        expect(await selectionsOf(db.store, runId)).toEqual(before);
      },
    );

    it("reads a run whose id and scorer names hold quotes, backslashes and $1", async () => {
      const runId = `it's a \\ run $1 ${randomUUID().slice(0, 8)}`;
      const verifier = "judge's $2 \\";
      await db.store.startRun({ id: runId, spec: {}, transport: "local" });
      const sample = (id: string, index: number): Sample => ({
        id,
        taskId: "t'1",
        candidateIndex: index,
        question: "q",
        answer: id,
        metadata: {},
        line: 1,
      });
      await db.store.insertSamples(runId, [sample("t'1#0", 0), sample("t'1#1", 1)]);
      await db.store.writeScores([
        scoreRow(runId, "t'1#0", verifier, "", 0.25),
        scoreRow(runId, "t'1#1", verifier, "", 0.75),
      ]);
      const totals = await selectForRun(db.store, runId, { verifierScorer: verifier });
      expect(totals.tasks).toBe(1);
      expect((await selectionsOf(db.store, runId)).map((s) => s.selected_index)).toEqual([1]);
    });

    it("replaces the run's selections only when the whole pass succeeds", async () => {
      const runId = `atomic-${randomUUID()}`;
      const tasks = {
        a: [verifierOnly(0.5, true)],
        b: [verifierOnly(1, false)],
      };
      await seed(db.store, runId, tasks);
      await selectForRun(db.store, runId, { verifierScorer: "judge" });
      const before = await selectionsOf(db.store, runId);
      // A pass that fails after storing its first batch leaves the earlier selections.
      let batches = 0;
      const failing = db.store.replaceSelections(
        runId,
        { verifierScorer: "judge" },
        () => (batch) => {
          batches += 1;
          if (batches === 2) throw new Error("selection failed half way");
          return batch.map((t) => ({ ...recordOf(before, t.taskId), method: "half" }));
        },
        { fetchRows: 1 },
      );
      await expect(failing).rejects.toThrow("selection failed half way");
      expect(await selectionsOf(db.store, runId)).toEqual(before);
    });
  },
);

/**
 * Whether the task ids never go back along the sample ids in byte order (the test
 * databases' collation; the generated ids are ASCII). Sample ids are `<task>/<index>`, as
 * `seed` stores them.
 */
function tasksFollowSampleOrder(tasks: Record<string, GeneratedCandidate[]>): boolean {
  const samples = Object.entries(tasks).flatMap(([task, candidates]) =>
    candidates.map((_, index) => ({ id: `${task}/${index}`, task })),
  );
  samples.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return samples.every((sample, i) => i === 0 || (samples[i - 1]?.task ?? "") <= sample.task);
}

/** Best-of-N by hand: the mean of a candidate's verifier rows, null if any is unscored. */
function expectedPick(candidates: readonly GeneratedCandidate[]): number | null {
  let best: { index: number; score: number } | null = null;
  candidates.forEach((c, index) => {
    if (c.judge.length === 0 || c.judge.includes("unscored")) return;
    const score = (c.judge as number[]).reduce((a, b) => a + b, 0) / c.judge.length;
    if (best === null || score > best.score) best = { index, score };
  });
  return (best as { index: number } | null)?.index ?? null;
}

/** A candidate with one verifier row and nothing else. */
function verifierOnly(value: Outcome, label?: boolean): GeneratedCandidate {
  return {
    label,
    judge: [value],
    distributions: [],
    legacy: [],
    shape: "verifier",
    exact: undefined,
  };
}

/** A pair prompt's stored judgment, drawn from its id: a probability, unscored, or none. */
function pairOutcome(promptId: string, salt: number): Outcome | undefined {
  let hash = salt;
  for (const char of promptId) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_003;
  const draw = hash % 7;
  if (draw === 5) return "unscored";
  if (draw === 6) return undefined;
  return draw / 4;
}

async function seed(
  store: Store,
  runId: string,
  tasks: Record<string, GeneratedCandidate[]>,
): Promise<void> {
  await store.startRun({ id: runId, spec: {}, transport: "local" });
  const entries = await insertCandidateSamples(store, runId, tasks, "/");
  const rows = entries.flatMap(({ id, candidate: c }) => [
    ...c.judge.map((o, i) =>
      scoreRow(runId, id, "judge", `criterion-${i}`, o, c.distributions[i], c.shape),
    ),
    ...(c.exact === undefined ? [] : [scoreRow(runId, id, "exact", "", c.exact)]),
  ]);
  if (rows.length > 0) await store.writeScores(rows);
  const legacy = entries.flatMap(({ id, candidate: c }) =>
    c.judge.flatMap((_, i) => (c.legacy[i] === true ? [`${id}/criterion-${i}`] : [])),
  );
  await runnerOf(driverOf(store)).query(
    `UPDATE scores SET discrete_level = NULL
     WHERE run_id = $1 AND sample_id || '/' || criterion = ANY($2::text[])`,
    [runId, legacy],
  );
}

function scoreRow(
  runId: string,
  sampleId: string,
  scorer: string,
  criterion: string,
  outcome: Outcome,
  distribution?: number[],
  shape: DetailShape = "verifier",
): ScoreRow {
  const scored = outcome !== "unscored";
  return {
    runId,
    sampleId,
    scorer,
    criterion,
    repetition: 0,
    rule: "default",
    status: scored ? "scored" : "unscored",
    value: scored ? outcome : null,
    reason: scored ? null : "overflow",
    detail: scored && distribution !== undefined ? SHAPES[shape](criterion, distribution) : null,
  };
}

interface StoredSelection {
  task_id: string;
  selected_index: number | null;
  tie: boolean;
  [column: string]: unknown;
}

async function selectionsOf(store: Store, runId: string): Promise<StoredSelection[]> {
  const { rows } = await runnerOf(driverOf(store)).query<StoredSelection>(
    `SELECT task_id, method, candidates, selected_index, selected_sample_id, tie, discrete_tie,
            tie_break, selected_correct, first_correct, any_correct, detail
     FROM selections WHERE run_id = $1 ORDER BY task_id`,
    [runId],
  );
  return rows;
}

async function selectionCount(store: Store, runId: string): Promise<number> {
  const { rows } = await runnerOf(driverOf(store)).query<{ n: number }>(
    "SELECT count(*)::int AS n FROM selections WHERE run_id = $1",
    [runId],
  );
  return rows[0]?.n ?? 0;
}

function recordOf(stored: readonly StoredSelection[], taskId: string) {
  const row = stored.find((s) => s.task_id === taskId) as StoredSelection;
  return {
    taskId,
    method: String(row.method),
    candidates: Number(row.candidates),
    selectedIndex: row.selected_index,
    selectedSampleId: row.selected_sample_id as string | null,
    tie: row.tie,
    discreteTie: row.discrete_tie as boolean | null,
    tieBreak: row.tie_break as string | null,
    selectedCorrect: row.selected_correct as boolean | null,
    firstCorrect: row.first_correct as boolean | null,
    anyCorrect: row.any_correct as boolean | null,
    detail: row.detail as Record<string, unknown>,
  };
}
