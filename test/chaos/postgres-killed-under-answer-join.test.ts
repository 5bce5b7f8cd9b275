/**
 * `assay run --answers` on a Postgres server that is kill -9ed while the join is under way:
 * while it stages the answer files, and while it joins reference rows to them (some
 * samples stored), its figures not yet recorded. Rerun with its --run-id once the server is back, the run must end as a clean
 * run of the same files does: every joined sample scored once, no answer lost or counted
 * twice, the same join figures, input errors, scores and usage.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { waitFor } from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnswerJoinState,
  answerJoinState,
  storedFigures,
} from "../distributed/support/answer-join-state.js";
import { startBuiltAssay } from "../distributed/support/assay-process.js";
import {
  type BatchAnswerFiles,
  writeBatchAnswerFiles,
} from "../distributed/support/batch-answers.js";
import { expectLostPostgres } from "../distributed/support/lost-postgres.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";

// Large enough that the join is seen in each phase, staging and joining.
const ROWS = 40_000;
// Exit codes (docs/cli.md, "Exit codes").
const INPUT_ERRORS = 4;

describe("chaos: Postgres killed during an answer join", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-join-"));
  const reference = join(dir, "reference.jsonl");
  const answers = join(dir, "answers.jsonl");
  const spec = join(dir, "spec.yaml");
  let postgres: OwnPostgres;
  let files: BatchAnswerFiles;

  beforeAll(async () => {
    postgres = await startPostgres();
    const store = await openStore({ databaseUrl: postgres.url, migrate: true });
    await store.close();
    files = await writeBatchAnswerFiles(reference, answers, ROWS);
    writeFileSync(spec, "default:\n  scorers: [{ name: exact }]\n");
    // The figures every rerun must end with: one clean run of the same files.
    const clean = await startBuiltAssay(args("clean")).done;
    expect(clean.code, clean.stderr).toBe(INPUT_ERRORS);
    expect((await state("clean")).recorded).toEqual(files.counts);
  });
  afterAll(async () => {
    await postgres?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const args = (runId: string) => [
    "run",
    reference,
    "--spec",
    spec,
    "--answers",
    answers,
    "--answers-format",
    "openai-batch",
    "--db",
    postgres.url,
    "--run-id",
    runId,
    "--quiet",
  ];
  const state = (runId: string) => answerJoinState({ runId, url: postgres.url });

  // Where the join is when the server dies: staging the answer files (no sample stored
  // yet), or joining reference rows (samples stored, more to come).
  const PHASES = [
    { phase: "staging", reached: (now: AnswerJoinState) => now.samples === 0 },
    {
      phase: "joining",
      reached: (now: AnswerJoinState) => now.samples > 0 && now.samples < files.counts.joined,
    },
  ];

  it.each(PHASES)(
    "killed while $phase, the rerun joins every answer once and ends with a clean run's figures",
    async ({ phase, reached }) => {
      const runId = `killed-${phase}`;
      const run = startBuiltAssay(args(runId));
      await waitFor(
        async () => {
          if (run.child.exitCode !== null) throw new Error(`assay run ended:\n${run.stderr()}`);
          const now = await state(runId);
          return now.staged > 0 && now.recorded === undefined && reached(now);
        },
        60_000,
        `the join ${phase}`,
      );
      await postgres.kill();
      const failed = await run.done;
      expectLostPostgres(failed);

      await postgres.restart();
      // The fault hit the join under way: answers staged, nothing recorded, run not finished.
      const killed = await state(runId);
      expect(killed.staged).toBeGreaterThan(0);
      expect(reached(killed), `still ${phase} when the server died`).toBe(true);
      expect(killed.recorded).toBeUndefined();
      expect(killed.finished).toBe(false);

      const rerun = await startBuiltAssay(args(runId)).done;
      expect(rerun.code, rerun.stderr).toBe(INPUT_ERRORS);
      const after = await state(runId);
      expect(after).toEqual(await state("clean"));
      expect(after.scores).toEqual({
        rows: files.counts.joined,
        distinctKeys: files.counts.joined,
      });
      expect(await storedFigures({ runId, url: postgres.url })).toEqual(
        await storedFigures({ runId: "clean", url: postgres.url }),
      );
    },
  );
});
