import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runTrend, type SqlRunner } from "@assay/store/reports";
import { sample } from "@assay/test-support/samples";
import { partitionsOf } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { abandonRun, completeRun } from "../src/index.js";
import { pgliteTarget, postgresTarget, type StoreTarget } from "./store-targets.js";

// A run that will never finish is abandoned, refused by completion, shown as such in
// trends and reports, and pruned by `abandoned` or by id; on both stores.

/** Stores `tasks` samples of the run, `scored` of them scored, `planned` results planned. */
async function seedRun(store: Store, runId: string, tasks: number, scored: number) {
  await store.startRun({ id: runId, name: "nightly", spec: {}, transport: "local" });
  await store.insertSamples(
    runId,
    Array.from({ length: tasks }, (_, i) => sample(`t${i}`, { line: i + 1 })),
  );
  await scoreSamples(store, runId, 0, scored);
  await store.setPlanned(runId, { results: tasks, modelResults: 0 });
}

async function scoreSamples(store: Store, runId: string, from: number, to: number) {
  const rows = [];
  for (let i = from; i < to; i += 1) {
    rows.push({
      runId,
      sampleId: `t${i}`,
      scorer: "exact",
      criterion: "",
      repetition: 0,
      rule: "default",
      status: "scored" as const,
      value: i % 2,
      reason: null,
      detail: null,
    });
  }
  await store.writeScores(rows);
}

// A raw table read by name or through a run's partition; rollup tables are not these.
const RAW_READ =
  /\b(?:FROM|JOIN)\s+(?:ONLY\s+)?"?(?:samples|scores|truncations|usage|selections)(?:_[0-9a-f]{32})?"?(?![_\w])/i;

function recording(runner: SqlRunner, texts: string[]): SqlRunner {
  return {
    query: (text, params) => {
      texts.push(text);
      return runner.query(text, params);
    },
  };
}

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("abandoning and pruning runs on %s", (_name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
    await seedRun(store, "done", 6, 6);
    expect(await completeRun(store, "done")).toMatchObject({ state: "completed", here: true });
    await seedRun(store, "stuck", 6, 2);
    await seedRun(store, "running", 6, 3);
  });
  afterAll(() => target.cleanup());

  it("marks a run abandoned once, and refuses to abandon a completed one", async () => {
    expect(await abandonRun(store, "stuck")).toMatchObject({ state: "abandoned", here: true });
    const again = await abandonRun(store, "stuck");
    expect(again).toMatchObject({ state: "abandoned", here: false });
    expect((await store.getRun("stuck"))?.abandonedAt).toEqual(
      again.state === "abandoned" && again.abandonedAt,
    );
    expect(await abandonRun(store, "done")).toEqual({ state: "completed" });
    expect((await store.getRun("done"))?.abandonedAt).toBeNull();
  });

  it("never completes an abandoned run, even once every planned result is stored", async () => {
    await scoreSamples(store, "stuck", 2, 6);
    expect(await store.countResults("stuck")).toBe(6);
    expect(await completeRun(store, "stuck", { wait: true })).toMatchObject({ state: "abandoned" });
    expect(await store.hasRollups("stuck")).toBe(false);
    expect((await store.getRun("stuck"))?.finishedAt).toBeNull();
  });

  it("shows runs without rollups in the trend by state, reading rollups only", async () => {
    const texts: string[] = [];
    const runner = recording(runnerOf(driverOf(store)), texts);
    const trend = await runTrend(runner, { name: "nightly", last: 10 });
    expect(trend.map((p) => [p.run.runId, p.state])).toEqual([
      ["done", "completed"],
      ["stuck", "abandoned"],
      ["running", "unfinished"],
    ]);
    expect(trend[0]?.scorerMeans.map((m) => m.scorer)).toEqual(["exact"]);
    expect(trend[1]).toMatchObject({ pass1: null, unscoredRate: null, scorerMeans: [] });
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.filter((t) => RAW_READ.test(t))).toEqual([]);
  });

  it("prunes abandoned runs and runs by id, listing them first with a dry run", async () => {
    const dry = await store.pruneRuns({ abandoned: true }, { dryRun: true });
    expect(dry.pruned.map((r) => [r.runId, r.abandoned])).toEqual([["stuck", true]]);
    expect(await partitionsOf(store, "stuck")).toBeGreaterThan(0);

    const outcome = await store.pruneRuns({ abandoned: true }, { dryRun: false });
    expect(outcome.pruned.map((r) => r.runId)).toEqual(["stuck"]);
    expect(await partitionsOf(store, "stuck")).toBe(0);
    const pruned = await store.getRun("stuck");
    expect(pruned?.prunedAt).not.toBeNull();
    expect(pruned?.abandonedAt).not.toBeNull();

    // By id: a completed run is pruned, a run still running is kept and said why.
    const byId = await store.pruneRuns({ runIds: ["done", "running"] }, { dryRun: false });
    expect(byId.pruned.map((r) => r.runId)).toEqual(["done"]);
    expect(byId.skipped.map((r) => [r.runId, r.reason])).toEqual([["running", "unfinished"]]);
    expect(await partitionsOf(store, "done")).toBe(0);
    expect(await partitionsOf(store, "running")).toBe(6);
    // The completed run's figures stay in the trend; the abandoned one is still shown as such.
    const trend = await runTrend(runnerOf(driverOf(store)), { name: "nightly", last: 10 });
    expect(trend.map((p) => p.state)).toEqual(["completed", "abandoned", "unfinished"]);
    expect(trend[0]?.scorerMeans[0]?.mean).toBeCloseTo(0.5, 12);
  });
});
