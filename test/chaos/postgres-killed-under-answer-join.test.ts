/**
 * `assay run --answers` on a Postgres server that is kill -9ed while the join is under way
 * (answers staged, some reference rows joined and stored, the join's figures not yet
 * recorded). Rerun with its --run-id once the server is back, the run must end as a clean
 * run of the same files does: every joined sample scored once, no answer lost or counted
 * twice, the same join figures, input errors, scores and usage.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerJoinState, storedFigures } from "../distributed/support/answer-join-state.js";
import { startBuiltAssay } from "../distributed/support/assay-process.js";
import {
  type BatchAnswerFiles,
  writeBatchAnswerFiles,
} from "../distributed/support/batch-answers.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";
import { waitFor } from "../distributed/support/services.js";

// Large enough that the join is seen under way, with samples stored and more to come.
const ROWS = 40_000;
const RUN = "killed";
// Exit codes (README.md, "Exit codes").
const INPUT_ERRORS = 4;
const UNAVAILABLE = 5;

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

  it("the rerun joins every answer once and ends with a clean run's figures", async () => {
    const clean = await startBuiltAssay(args("clean")).done;
    expect(clean.code, clean.stderr).toBe(INPUT_ERRORS);
    const cleanState = await state("clean");
    expect(cleanState.recorded).toEqual(files.counts);

    const run = startBuiltAssay(args(RUN));
    await waitFor(
      async () => {
        if (run.child.exitCode !== null) throw new Error(`assay run ended:\n${run.stderr()}`);
        const now = await state(RUN);
        return now.staged > 0 && now.samples > 0 && now.recorded === undefined;
      },
      60_000,
      "the join to stage answers and store its first samples",
    );
    await postgres.kill();
    const failed = await run.done;
    expect(failed.stderr, failed.stderr).not.toMatch(/Unhandled 'error' event|\n\s+at /);
    expect(failed.stderr).toMatch(/lost the connection to Postgres at .*127\.0\.0\.1/);
    expect(failed.code).toBe(UNAVAILABLE);

    await postgres.restart();
    // The fault hit the join under way: answers staged, rows to join left, nothing recorded.
    const killed = await state(RUN);
    expect(killed.staged).toBeGreaterThan(0);
    expect(killed.samples).toBeGreaterThan(0);
    expect(killed.samples).toBeLessThan(files.counts.joined);
    expect(killed.recorded).toBeUndefined();
    expect(killed.finished).toBe(false);

    const rerun = await startBuiltAssay(args(RUN)).done;
    expect(rerun.code, rerun.stderr).toBe(INPUT_ERRORS);
    const after = await state(RUN);
    expect(after).toEqual(cleanState);
    expect(after.scores).toEqual({ rows: files.counts.joined, distinctKeys: files.counts.joined });
    expect(await storedFigures({ runId: RUN, url: postgres.url })).toEqual(
      await storedFigures({ runId: "clean", url: postgres.url }),
    );
  });
});
