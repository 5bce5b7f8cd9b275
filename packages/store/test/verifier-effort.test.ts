import type { JobResult } from "@assay/core";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf, runReports, writeRollups } from "../src/reports/index.js";
import { freshRunId, scored } from "./fixtures.js";

// Prompts and forward passes come from the usage rows; a row stored before they were
// counted leaves its scorer's figures unknown rather than a partial sum.

function verifierJob(
  runId: string,
  sampleId: string,
  scorer: string,
  counts: { prompts: number; forwardPasses: number } | null,
): JobResult {
  return {
    score: scored(runId, sampleId, scorer, 0.5),
    truncations: [],
    usage: [
      {
        runId,
        sampleId,
        role: "verifier",
        scorer,
        model: "tiny",
        inputTokens: 10,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        computeMs: 1,
        device: "cpu",
        prompts: counts?.prompts ?? null,
        forwardPasses: counts?.forwardPasses ?? null,
      },
    ],
  };
}

describe.each(DRIVER_NAMES)("verifier effort on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("sums pass shares into whole passes and leaves older rows' counts unknown", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    // Three samples whose prompts shared one pass, and one scorer with a row from before.
    await db.store.writeResults([
      ...["a", "b", "c"].map((id) =>
        verifierJob(runId, id, "counted", { prompts: 4, forwardPasses: 1 / 3 }),
      ),
      verifierJob(runId, "a", "older", { prompts: 4, forwardPasses: 1 }),
      verifierJob(runId, "b", "older", null),
    ]);
    const runner = runnerOf(driverOf(db.store));
    const [raw] = await runReports(runner, [runId]);
    expect(raw?.verifierEffort?.byScorer).toEqual([
      { scorer: "counted", inputTokens: 30, cachedInputTokens: 0, prompts: 12, forwardPasses: 1 },
      {
        scorer: "older",
        inputTokens: 20,
        cachedInputTokens: 0,
        prompts: null,
        forwardPasses: null,
      },
    ]);
    expect(raw?.verifierEffort?.promptsPerSolvedTask).toBeNull();

    await writeRollups(driverOf(db.store), runId);
    expect(await runReports(runner, [runId])).toEqual([raw]);
  });

  it("reads a rollup written before prompts were counted as unknown, not as passes", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    await db.store.writeResults([verifierJob(runId, "a", "v", { prompts: 4, forwardPasses: 1 })]);
    const runner = runnerOf(driverOf(db.store));
    await writeRollups(driverOf(db.store), runId);
    // The older summary: truncation rows counted as `forwardPasses`, no `prompts`.
    await runner.query(
      `UPDATE summary_rollups SET summary = summary - 'prompts' || '{"forwardPasses": 4}'
       WHERE run_id = $1 AND kind = 'verifier_effort'`,
      [runId],
    );
    const [report] = await runReports(runner, [runId]);
    expect(report?.verifierEffort?.byScorer).toEqual([
      { scorer: "v", inputTokens: 10, cachedInputTokens: 0, prompts: null, forwardPasses: null },
    ]);
  });
});
