import { RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { DATABASE_URL, queryRows } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeRun, type RunCompletion, runLocal } from "../src/index.js";
import { pgliteTarget, postgresTarget, type StoreTarget } from "./store-targets.js";
import { jsonl, tempFiles } from "./temp-files.js";

// Every path that finishes a run (assay run, a waiting producer or retry, assay status, the
// worker that stores the last result) calls completeRun; these are the promises it keeps.
const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({
  default: { scorers: [{ name: "f1" }, { name: "exact" }] },
  selection: { verifier: "f1", check: "exact" },
});
const dataset = files.write(
  "tasks.jsonl",
  jsonl(
    ["a", "b", "c", "d"].map((id, i) => ({
      id,
      question: "Capital of France?",
      target: "Paris",
      candidates: [
        { answer: i % 2 === 0 ? "Paris or Lyon" : "Lyon" },
        { answer: "Paris" },
        { answer: "Lyon" },
      ],
    })),
  ),
);

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("completing a run on %s", (name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  /** Stores of other processes on the same database (Postgres only: PGlite has one). */
  const others: Store[] = [];

  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
    await store.startRun({ id: "r", dataset, spec, transport: "local" });
  });
  afterAll(async () => {
    for (const other of others) await other.close();
    await target.cleanup();
  });

  // Rewritten whole by each completion: the same picks, with new timestamps.
  const selections = () =>
    queryRows(
      store,
      `SELECT task_id, selected_index, selected_correct, first_correct, any_correct, detail
         FROM selections WHERE run_id = 'r' ORDER BY task_id`,
    );

  it("happens once however many find the run complete together, and the same each time", async () => {
    const local = await runLocal({ store, registry, dataset, spec, runId: "r" });
    expect(local.complete).toBe(true);
    const picked = await selections();
    expect(picked).toHaveLength(4);

    // As a completer that died after marking the run finished leaves it: no rollups.
    await store.dropRollups("r");
    if (name === "postgres") {
      const schema = ((await queryRows(store, "SELECT current_schema() AS s"))[0] as { s: string })
        .s;
      for (let i = 0; i < 3; i += 1)
        others.push(await openStore({ databaseUrl: DATABASE_URL, schema }));
    }
    const completers = name === "postgres" ? others : [store, store, store];
    const outcomes: RunCompletion[] = await Promise.all([
      ...completers.map((each) => completeRun(each, "r")),
      completeRun(store, "r", { wait: true }),
    ]);
    const here = outcomes.filter((o) => o.state === "completed" && o.here);
    expect(here).toHaveLength(1);
    expect(outcomes.every((o) => o.state === "completed" || o.state === "busy")).toBe(true);
    // The one that waited reports what was stored, whoever stored it.
    expect(outcomes.at(-1)).toMatchObject({ state: "completed", selection: local.selection });
    expect(await store.hasRollups("r")).toBe(true);
    expect(await selections()).toEqual(picked);

    // Completed already: a later call does nothing and counts the stored selections, which
    // are what selection counted when it made them.
    expect(await completeRun(store, "r")).toEqual({
      state: "completed",
      here: false,
      selection: local.selection,
    });
  });

  it("leaves planner statistics on the run's partitions and on their partitioned parents", async () => {
    // Analysed by the completion above; a parent's rows are those of every partition.
    const stats = (await queryRows(
      store,
      `SELECT tablename AS table, inherited FROM pg_stats
       WHERE schemaname = current_schema() AND attname = 'run_id'
         AND tablename IN ('samples', 'scores', assay_run_partition('samples', 'r'),
                           assay_run_partition('scores', 'r'), 'selections')`,
    )) as { table: string; inherited: boolean }[];
    const described = stats.map((s) => `${s.table.replace(/_[0-9a-f]{32}$/, "_r")}:${s.inherited}`);
    expect(described.sort()).toEqual([
      "samples:true",
      "samples_r:false",
      "scores:true",
      "scores_r:false",
      "selections:true",
    ]);
  });

  it("does nothing while the plan is unknown or results are missing", async () => {
    await store.clearPlan("r");
    expect(await completeRun(store, "r")).toEqual({
      state: "incomplete",
      planned: null,
      stored: 24,
    });
    await store.setPlanned("r", { results: 25, modelResults: 0 });
    expect(await completeRun(store, "r")).toMatchObject({ state: "incomplete", planned: 25 });
  });
});
