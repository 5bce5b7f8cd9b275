import { RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { hasRollups, rawRunFigures, runnerOf, runReports } from "@assay/store/reports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResumeRun, openDataset, runLocal } from "../src/index.js";
import { pgliteTarget, postgresTarget, type StoreTarget } from "./store-targets.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({
  name: "nightly",
  default: { scorers: [{ name: "f1" }, { name: "exact" }] },
  selection: { verifier: "f1", check: "exact" },
});

/** A task of three candidates: the first half right, the second right, the third wrong. */
function task(id: string) {
  return {
    id,
    question: "Capital of France?",
    target: "Paris",
    candidates: [{ answer: "Paris or Lyon" }, { answer: "Paris" }, { answer: "Lyon" }],
  };
}

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("rollups of a local run on %s", (_name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  const firstNight = files.write(`first-${Math.random()}.jsonl`, jsonl([task("a"), task("b")]));
  const grown = files.write(
    `grown-${Math.random()}.jsonl`,
    jsonl([task("a"), task("b"), task("c")]),
  );

  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
    await store.startRun({
      id: "r",
      name: "nightly",
      dataset: firstNight,
      spec,
      transport: "local",
    });
  });
  afterAll(async () => {
    await target.cleanup();
  });

  /** The report read now (from rollups when the run has them) and from raw rows only. */
  async function reportAndRaw() {
    const runner = runnerOf(driverOf(store));
    const [report] = await runReports(runner, ["r"]);
    const raw = (await rawRunFigures(runner, ["r"])).get("r");
    return { report, raw, rolledUp: await hasRollups(runner, "r") };
  }

  it("are written when the run completes, and equal the raw-row figures", async () => {
    const outcome = await runLocal({ store, registry, dataset: firstNight, spec, runId: "r" });
    expect(outcome.complete).toBe(true);
    const { report, raw, rolledUp } = await reportAndRaw();
    expect(rolledUp).toBe(true);
    expect(report?.tasks).toBe(2);
    expect(report?.accuracy.selected).toEqual({ count: 2, of: 2, rate: 1 });
    expect(report?.unscored.results).toBe(raw?.scores.unscored.results);
    expect(report?.accuracy.selected).toEqual(raw?.selection.selected);
  });

  it("are dropped when the run resumes, so an unfinished resume is reported from raw rows", async () => {
    const stopped = new AbortController();
    stopped.abort();
    const outcome = await runLocal({
      store,
      registry,
      dataset: grown,
      spec,
      runId: "r",
      signal: stopped.signal,
    });
    expect(outcome.complete).toBe(false);
    const { report, raw, rolledUp } = await reportAndRaw();
    expect(rolledUp).toBe(false);
    expect(report?.samples).toBe(raw?.counts.samples);
  });

  it("are rewritten when a resumed run completes with more samples", async () => {
    const outcome = await runLocal({ store, registry, dataset: grown, spec, runId: "r" });
    expect(outcome.produced).toMatchObject({ enqueued: 6, skipped: 12 });
    const { report, raw, rolledUp } = await reportAndRaw();
    expect(rolledUp).toBe(true);
    expect(report?.tasks).toBe(3);
    expect(report?.samples).toBe(9);
    expect(report?.unscored.results).toBe(18);
    expect(report?.accuracy.selected).toEqual({ count: 3, of: 3, rate: 1 });
    expect(raw?.counts).toEqual({ samples: 9, tasks: 3 });
  });

  it("are rewritten when the run resumes with another selection method, nothing missing", async () => {
    const tournament = RunSpecSchema.parse({
      ...spec,
      selection: { verifier: "f1", check: "exact", method: "pivot_tournament" },
    });
    const dataset = await openDataset(grown);
    try {
      await createOrResumeRun({
        store,
        runId: "r",
        dataset,
        spec: tournament,
        transport: "local",
        allowChangedSpec: true,
      });
      const outcome = await runLocal({ store, registry, dataset, spec: tournament, runId: "r" });
      expect(outcome.produced).toMatchObject({ enqueued: 0, skipped: 18 });
    } finally {
      await dataset.close();
    }
    const { report, raw, rolledUp } = await reportAndRaw();
    expect(rolledUp).toBe(true);
    expect(report?.accuracy.methods).toEqual(["pivot_tournament"]);
    expect(raw?.selection.methods).toEqual(["pivot_tournament"]);
  });
});
