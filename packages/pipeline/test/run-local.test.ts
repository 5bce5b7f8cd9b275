import { RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLocal } from "../src/index.js";
import { pgliteTarget, postgresTarget, rawQuery, type StoreTarget } from "./store-targets.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({
  name: "pipeline-test",
  rules: [
    { name: "mcq", when: { "metadata.kind": "mcq" }, scorers: [{ name: "choice" }] },
    { name: "numbers", when: { target_type: "number" }, scorers: [{ name: "numeric" }] },
  ],
  default: { scorers: [{ name: "exact" }, { name: "f1" }] },
});

const lines = [
  {
    id: "m1",
    question: "Pick",
    answer: "The answer is (B).",
    target: "B",
    metadata: { kind: "mcq", choices: ["x", "y", "z"] },
  },
  {
    id: "m2",
    question: "Pick",
    answer: "I cannot decide",
    target: "A",
    metadata: { kind: "mcq", choices: ["x", "y", "z"] },
  },
  { id: "n1", question: "2+2?", answer: "It is 4.", target: 4 },
  { id: "t1", question: "Capital of France?", answer: "The Paris", target: ["Paris"] },
  {
    id: "t2",
    question: "Largest ocean?",
    answer: "Atlantic",
    target: ["Pacific", "the Pacific Ocean"],
  },
  '{"id": "broken", ',
  { id: "x1", question: "q", answer: 5 },
];

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("runLocal on %s", (_name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  const dataset = files.write(`data-${Math.random()}.jsonl`, jsonl(lines));

  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
    await store.startRun({ id: "r1", dataset, spec, transport: "local" });
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it("scores every routed sample, stores input errors, and summarizes by scorer and rule", async () => {
    const outcome = await runLocal({ store, registry, dataset, spec, runId: "r1" });
    expect(outcome.produced).toMatchObject({
      samples: 5,
      planned: 7,
      enqueued: 7,
      skipped: 0,
      inputErrors: 2,
    });
    expect(outcome.complete).toBe(true);
    const summary = outcome.summary;
    expect(summary.results).toBe(7);
    expect(summary.finishedAt).not.toBeNull();
    const group = (rule: string, scorer: string) =>
      summary.groups.find((g) => g.rule === rule && g.scorer === scorer);
    expect(group("mcq", "choice")).toMatchObject({
      results: 2,
      scored: 1,
      mean: 1,
      unscored: { unparseable: 1 },
    });
    expect(group("numbers", "numeric")).toMatchObject({ results: 1, mean: 1 });
    expect(group("default", "exact")).toMatchObject({ results: 2, scored: 2, mean: 0.5 });
    expect(summary.inputErrors).toBe(2);
    expect(summary.inputErrorExamples.map((e) => [e.line, e.field])).toEqual([
      [6, ""],
      [7, "answer"],
    ]);
  });

  it("resumes: a rerun scores only the missing results and skips the stored ones", async () => {
    // Lose two stored results, as a crash between scoring and storing would.
    await rawQuery(
      store,
      "DELETE FROM scores WHERE run_id = 'r1' AND sample_id IN ('t1', 'n1') AND scorer IN ('exact', 'numeric')",
    );
    const outcome = await runLocal({ store, registry, dataset, spec, runId: "r1" });
    // The stored samples come from the same lines: a resume, not duplicate ids.
    expect(outcome.produced).toMatchObject({ planned: 7, enqueued: 2, skipped: 5, inputErrors: 2 });
    expect(outcome.stored).toBe(2);
    expect(outcome.summary.results).toBe(7);
  });

  it("reports a duplicate id with the line that used it first, across chunks", async () => {
    const duplicated = files.write(
      `dup-${Math.random()}.jsonl`,
      jsonl([
        { id: "d1", question: "q", answer: "a", target: ["a"] },
        { id: "d2", question: "q", answer: "b", target: ["b"] },
        { id: "d1", question: "q", answer: "c", target: ["c"] },
      ]),
    );
    await store.startRun({ id: "dups", dataset: duplicated, spec, transport: "local" });
    const outcome = await runLocal({
      store,
      registry,
      dataset: duplicated,
      spec,
      runId: "dups",
      chunkSize: 1,
    });
    expect(outcome.produced).toMatchObject({ samples: 2, inputErrors: 1 });
    expect(outcome.summary.inputErrorExamples[0]).toMatchObject({
      line: 3,
      field: "id",
      message: expect.stringMatching(/duplicate id "d1" \(first used on line 1\)/),
    });
  });

  it("exports one row per score in a stable order", async () => {
    const rows = [];
    for await (const row of store.exportScores("r1")) rows.push(row);
    expect(rows.map((r) => `${r.sample_id}/${r.scorer}`)).toEqual([
      "m1/choice",
      "m2/choice",
      "n1/numeric",
      "t1/exact",
      "t1/f1",
      "t2/exact",
      "t2/f1",
    ]);
    expect(rows[0]).toMatchObject({
      run_id: "r1",
      task_id: "m1",
      status: "scored",
      value: 1,
      rule: "mcq",
      criterion: "",
      repetition: 0,
    });
    expect(rows[1]).toMatchObject({ status: "unscored", value: null, reason: "unparseable" });
  });
});

describe("an interrupted local run", () => {
  it("stores what it scored, then a rerun completes it with no duplicates", async () => {
    const target = pgliteTarget();
    const store = await target.open();
    try {
      const many = Array.from({ length: 3000 }, (_, i) => ({
        id: `q${i}`,
        question: "q",
        answer: `a${i}`,
        target: [`a${i}`],
      }));
      const dataset = files.write(`interrupt-${Math.random()}.jsonl`, jsonl(many));
      await store.startRun({ id: "int", dataset, spec, transport: "local" });
      const controller = new AbortController();
      const first = await runLocal({
        store,
        registry,
        dataset,
        spec,
        runId: "int",
        chunkSize: 100,
        concurrency: 50,
        onProgress: (progress) => {
          if (progress.stored > 0) controller.abort();
        },
        signal: controller.signal,
      });
      expect(first.interrupted).toBe(true);
      expect(first.complete).toBe(false);
      expect(first.summary.finishedAt).toBeNull();
      expect(first.summary.results).toBe(first.stored);
      expect(first.stored).toBeLessThan(6000);

      const second = await runLocal({ store, registry, dataset, spec, runId: "int" });
      expect(second.complete).toBe(true);
      expect(second.produced.skipped).toBe(first.stored);
      expect(second.summary.results).toBe(6000);
    } finally {
      await target.cleanup();
    }
  });
});
