import type { JobResult, Sample, SelectionRecord } from "@assay/core";
import { storeSelections } from "@assay/test-support/store-selections";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runComparison, runnerOf, sampleRecord, sliceReport } from "../src/reports/index.js";
import type { Store } from "../src/store.js";
import { sample, scored } from "./fixtures.js";

const TASKS = 20;
const taskIds = Array.from({ length: TASKS }, (_, i) => `t${String(i).padStart(2, "0")}`);

/** Two candidates per task; a task's kind is "open" for even tasks, "short" for odd ones. */
function candidates(): Sample[] {
  return taskIds.flatMap((taskId, t) =>
    [0, 1].map((index) =>
      sample(`${taskId}#${index}`, {
        taskId,
        candidateIndex: index,
        line: t + 1,
        metadata: { kind: t % 2 === 0 ? "open" : "short", level: { n: t % 3 } },
        generator: { model: "gen", input_tokens: 100, output_tokens: 10 },
      }),
    ),
  );
}

function selection(taskId: string, first: boolean, picked: boolean): SelectionRecord {
  return {
    taskId,
    method: "best_of_n",
    candidates: 2,
    selectedIndex: 1,
    selectedSampleId: `${taskId}#1`,
    tie: false,
    discreteTie: null,
    tieBreak: null,
    selectedCorrect: picked,
    firstCorrect: first,
    anyCorrect: first || picked,
    detail: {},
  };
}

/**
 * A verifier result with its usage row and two prompts' truncation rows, keyed as the job
 * handler writes them: by the prompt's criterion and variant. The first prompt was cut.
 */
function verifierResult(runId: string, sampleId: string, value: number, cut: boolean): JobResult {
  const prompt = { runId, sampleId, scorer: "verifier", criterion: "correct" };
  return {
    score: { ...scored(runId, sampleId, "verifier", value), detail: { head: "probe" } },
    truncations: [
      {
        ...prompt,
        repetition: 0,
        originalTokens: cut ? 3000 : 400,
        keptTokens: cut ? 2040 : 400,
        droppedTokens: cut ? 960 : 0,
        slot: cut ? "question" : "",
        policy: "error",
      },
      {
        ...prompt,
        repetition: 1,
        originalTokens: 400,
        keptTokens: 400,
        droppedTokens: 0,
        slot: "",
        policy: "error",
      },
    ],
    usage: [
      {
        runId,
        sampleId,
        role: "verifier",
        scorer: "verifier",
        model: "tiny",
        inputTokens: cut ? 2040 : 400,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        computeMs: 36,
        device: "cpu",
        prompts: 1,
        forwardPasses: 1,
      },
    ],
  };
}

describe.each(DRIVER_NAMES)("report drill-down (%s)", (driver) => {
  let handle: TestStore;
  let store: Store;

  beforeAll(async () => {
    handle = await openTestStore(driver);
    store = handle.store;
    // Selected as a spec with a selection section asks: the pick decides solved tasks.
    const spec = { selection: { verifier: "verifier", threshold: 0.5 } };
    for (const runId of ["base", "tonight", "same"]) {
      await store.startRun({ id: runId, spec, transport: "local" });
      await store.insertSamples(runId, candidates());
    }
    // Baseline: the first candidate solves half the tasks, the pick 3 in 4.
    // Tonight: the first candidate solves every task; the pick is unchanged.
    // "same" repeats the baseline exactly.
    const base = taskIds.map((t, i) => selection(t, i % 2 === 0, i % 4 !== 0));
    await storeSelections(store, "base", base);
    await storeSelections(store, "same", base);
    await storeSelections(
      store,
      "tonight",
      taskIds.map((t, i) => selection(t, true, i % 4 !== 0)),
    );
    // exact: 0.5 on every candidate in the baseline, 0.5 + 0.1 tonight.
    for (const [runId, shift] of [
      ["base", 0],
      ["same", 0],
      ["tonight", 0.1],
    ] as const) {
      await store.writeScores(
        candidates().map((s) => scored(runId, s.id, "exact", 0.5 + shift, "short-answer")),
      );
    }
    // A task only tonight has is left out of every paired figure.
    await store.insertSamples("tonight", [sample("extra#0", { taskId: "extra", line: 99 })]);
    await store.writeScores([scored("tonight", "extra#0", "exact", 0)]);
    // Verifier results of tonight's first candidates; open tasks' inputs were cut.
    await store.writeResults(
      taskIds.map((t, i) => verifierResult("tonight", `${t}#0`, 0.25 + i / 100, i % 2 === 0)),
    );
  });
  afterAll(() => handle?.dispose());

  it("compares paired tasks and marks a difference whose interval excludes 0", async () => {
    const comparison = await runComparison(runnerOf(driverOf(store)), "tonight", "base", {
      resamples: 500,
    });
    expect(comparison).toMatchObject({ runId: "tonight", baselineRunId: "base", resamples: 500 });
    const byMetric = new Map(comparison.differences.map((d) => [d.metric, d]));
    expect([...byMetric.keys()]).toEqual(["pass@1", "selected", "oracle", "exact"]);

    const pass1 = byMetric.get("pass@1");
    expect(pass1).toMatchObject({ kind: "accuracy", tasks: TASKS, current: 1, baseline: 0.5 });
    expect(pass1?.difference).toBeCloseTo(0.5, 12);
    expect(pass1?.excludesZero).toBe(true);
    expect(pass1?.low).toBeGreaterThan(0);

    expect(byMetric.get("selected")).toMatchObject({
      difference: 0,
      low: 0,
      high: 0,
      excludesZero: false,
    });
    const exact = byMetric.get("exact");
    expect(exact).toMatchObject({ kind: "scorer", tasks: TASKS, excludesZero: true });
    expect(exact?.low).toBeCloseTo(0.1, 9);
    expect(exact?.high).toBeCloseTo(0.1, 9);
  });

  it("finds no difference between identical runs", async () => {
    const comparison = await runComparison(runnerOf(driverOf(store)), "same", "base");
    expect(comparison.resamples).toBe(2000);
    for (const d of comparison.differences) {
      expect(d).toMatchObject({ difference: 0, low: 0, high: 0, excludesZero: false });
    }
  });

  it("slices every headline figure by a metadata field, samples without it last", async () => {
    const prices = {
      currency: "USD",
      models: {
        gen: { input_per_million: 1, output_per_million: 10 },
        tiny: { gpu_hour: 3.6 },
      },
    };
    const report = await sliceReport(runnerOf(driverOf(store)), "tonight", "metadata.kind", {
      prices,
    });
    expect(report.by).toBe("metadata.kind");
    expect(report.slices.map((s) => [s.value, s.tasks, s.samples])).toEqual([
      ["open", 10, 20],
      ["short", 10, 20],
      [null, 1, 1],
    ]);
    const [open, short] = report.slices;
    expect(open?.pass1).toEqual({ count: 10, of: 10, rate: 1 });
    // Picks: tasks whose index is not a multiple of 4; among even (open) tasks that is 5 of 10.
    expect(open?.selected).toEqual({ count: 5, of: 10, rate: 0.5 });
    expect(short?.selected).toEqual({ count: 10, of: 10, rate: 1 });
    // Two prompts per verifier call, the first of each open task's cut.
    expect(open?.truncation).toEqual({ count: 10, of: 20, rate: 0.5 });
    expect(short?.truncation).toEqual({ count: 0, of: 20, rate: 0 });
    expect(open?.scorers.map((s) => [s.scorer, s.results, s.scored])).toEqual([
      ["exact", 20, 20],
      ["verifier", 10, 10],
    ]);
    expect(open?.scorers[0]?.mean).toBeCloseTo(0.6, 12);
    // Generation: 20 samples × (100 input + 10×10 output) / 1e6 = 0.004; verification:
    // 10 calls × 36 ms at 3.6 an hour = 0.00036.
    expect(open?.cost?.total).toBeCloseTo(0.00436, 12);
    expect(open?.cost?.perSolvedTask).toBeCloseTo(0.00436 / 5, 12);

    const nested = await sliceReport(runnerOf(driverOf(store)), "tonight", "metadata.level.n");
    expect(nested.slices.map((s) => [s.value, s.tasks])).toEqual([
      ["0", 7],
      ["1", 7],
      ["2", 6],
      [null, 1],
    ]);
    expect(nested.slices[0]?.cost).toBeNull();
  });

  it("reads one sample back with every score, its truncations and usage", async () => {
    const record = await sampleRecord(runnerOf(driverOf(store)), "tonight", "t00#0");
    expect(record).toMatchObject({
      runId: "tonight",
      sampleId: "t00#0",
      taskId: "t00",
      candidateIndex: 0,
      line: 1,
      metadata: { kind: "open" },
      generator: { role: "generator", model: "gen", inputTokens: 100, outputTokens: 10 },
    });
    expect(record?.scores.map((s) => [s.scorer, s.rule, s.status, s.value])).toEqual([
      ["exact", "short-answer", "scored", 0.6],
      ["verifier", "default", "scored", 0.25],
    ]);
    expect(record?.scores[0]).toMatchObject({ truncations: [], usage: null });
    expect(record?.scores[1]).toMatchObject({
      detail: { head: "probe" },
      truncations: [
        {
          criterion: "correct",
          variant: 0,
          originalTokens: 3000,
          keptTokens: 2040,
          slot: "question",
        },
        { criterion: "correct", variant: 1, originalTokens: 400, droppedTokens: 0, slot: "" },
      ],
      usage: { role: "verifier", model: "tiny", inputTokens: 2040, computeMs: 36, device: "cpu" },
    });
    expect(await sampleRecord(runnerOf(driverOf(store)), "tonight", "nope")).toBeUndefined();
  });
});
