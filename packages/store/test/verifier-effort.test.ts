import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JobResult } from "@assay/core";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "../src/migrations.js";
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
    const runner = runnerOf(db.store.driver);
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

    await writeRollups(db.store.driver, runId);
    expect(await runReports(runner, [runId])).toEqual([raw]);
  });

  it("reads a rollup written before prompts were counted as unknown, not as passes", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    await db.store.writeResults([verifierJob(runId, "a", "v", { prompts: 4, forwardPasses: 1 })]);
    const runner = runnerOf(db.store.driver);
    await writeRollups(db.store.driver, runId);
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

  it("gives truncation rows stored with a single criterion's name the score row's criterion", async () => {
    const runId = freshRunId();
    await db.store.startRun({ id: runId, spec: {}, transport: "local" });
    const prompt = (sampleId: string, scorer: string, criterion: string, repetition: number) => ({
      runId,
      sampleId,
      scorer,
      criterion,
      repetition,
      originalTokens: 9,
      keptTokens: 9,
      droppedTokens: 0,
      slot: "",
      policy: "error",
    });
    const job = (sampleId: string, scorer: string, prompts: [string, number][]): JobResult => ({
      score: scored(runId, sampleId, scorer, 0.5),
      truncations: prompts.map(([criterion, rep]) => prompt(sampleId, scorer, criterion, rep)),
      usage: [],
    });
    // As stored before: the verifier's unnamed criterion ("default", two variants), a
    // pairwise judgment ("pairwise"), and a verifier with two criteria, kept as they are.
    await db.store.writeResults([
      job("a", "verifier", [
        ["default", 0],
        ["default", 1],
      ]),
      job("b", "verifier", [["default", 0]]),
      job("a#pair-0-1", "judge", [["pairwise", 0]]),
      job("a", "criteria", [
        ["correctness", 0],
        ["completeness", 0],
      ]),
      job("b", "criteria", [["correctness", 0]]),
    ]);
    const migration = readFileSync(
      join(migrationsFolder(), "0006_truncation_criterion_of_score.sql"),
      "utf8",
    );
    await runnerOf(db.store.driver).query(migration, []);

    const rows = await queryRows(
      db.store,
      `SELECT t.sample_id, t.scorer, t.criterion, t.repetition, s.sample_id IS NOT NULL AS joins
       FROM truncations t LEFT JOIN scores s
         ON s.run_id = t.run_id AND s.sample_id = t.sample_id AND s.scorer = t.scorer
        AND s.criterion = t.criterion AND s.repetition = t.repetition
       WHERE t.run_id = '${runId}' ORDER BY t.scorer, t.sample_id, t.criterion, t.repetition`,
    );
    expect(rows).toEqual([
      {
        sample_id: "a",
        scorer: "criteria",
        criterion: "completeness",
        repetition: 0,
        joins: false,
      },
      { sample_id: "a", scorer: "criteria", criterion: "correctness", repetition: 0, joins: false },
      { sample_id: "b", scorer: "criteria", criterion: "correctness", repetition: 0, joins: false },
      { sample_id: "a#pair-0-1", scorer: "judge", criterion: "", repetition: 0, joins: true },
      { sample_id: "a", scorer: "verifier", criterion: "", repetition: 0, joins: true },
      { sample_id: "a", scorer: "verifier", criterion: "", repetition: 1, joins: false },
      { sample_id: "b", scorer: "verifier", criterion: "", repetition: 0, joins: true },
    ]);
  });
});
