import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JobResult } from "@assay/core";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { migrationsFolder } from "../src/migrations.js";
import { runnerOf } from "../src/reports/index.js";
import { freshRunId, scored } from "./fixtures.js";

// A truncation row is keyed like its score row: criterion "" for a scorer with a single
// criterion. The data migration gives rows stored before with the criterion's name the same.

describe.each(DRIVER_NAMES)("truncation keys on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

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
    await runnerOf(driverOf(db.store)).query(migration, []);

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
