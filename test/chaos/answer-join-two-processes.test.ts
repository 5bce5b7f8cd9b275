/**
 * Two `assay run --answers` processes for one run id on one Postgres store at once (a
 * nightly job started twice, a retry fired while the first attempt still runs). Each
 * attempt stages the answer files before joining them, so a second attempt would clear the
 * first one's staged answers under it: rows counted missing that had answers, figures
 * overwritten. The second must be refused while the first joins, and the first must end
 * with every sample scored once and its figures whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import {
  DATABASE_URL,
  dropSchema,
  freshSchema,
  PATIENCE_MS,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerJoinState } from "../distributed/support/answer-join-state.js";
import { startBuiltAssay } from "../distributed/support/assay-process.js";
import {
  type BatchAnswerFiles,
  writeBatchAnswerFiles,
} from "../distributed/support/batch-answers.js";
import { bounded } from "../distributed/support/stored-keys.js";

// Large enough that the first attempt is still joining when it is seen staging.
const ROWS = 40_000;
const RUN = "nightly";
// Exit codes (docs/cli.md, "Exit codes").
const INPUT_ERRORS = 4;
const UNAVAILABLE = 5;

describe("two processes joining answers for one run", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-join-twice-"));
  const reference = join(dir, "reference.jsonl");
  const answers = join(dir, "answers.jsonl");
  const spec = join(dir, "spec.yaml");
  const schema = freshSchema();
  let files: BatchAnswerFiles;

  beforeAll(async () => {
    files = await writeBatchAnswerFiles(reference, answers, ROWS);
    writeFileSync(spec, "default:\n  scorers: [{ name: exact }]\n");
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
  });
  afterAll(async () => {
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  const args = [
    "run",
    reference,
    "--spec",
    spec,
    "--answers",
    answers,
    "--answers-format",
    "openai-batch",
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--run-id",
    RUN,
    "--quiet",
  ];
  const state = () => answerJoinState({ runId: RUN, schema });

  it("refuses the second while the first joins, and the first scores every sample once", async () => {
    const first = startBuiltAssay(args);
    await waitFor(
      async () => {
        if (first.child.exitCode !== null)
          throw new Error(`the first run ended:\n${first.stderr()}`);
        const now = await state();
        return now.staged > 0 && now.recorded === undefined;
      },
      60_000,
      "the first run to stage answers",
    );
    // Paused mid-join, the first attempt overlaps the second however fast this machine is.
    const pid = first.child.pid as number;
    process.kill(pid, "SIGSTOP");
    let second: Awaited<typeof first.done>;
    try {
      const during = await state();
      expect(during.staged, "the first run has staged answers").toBeGreaterThan(0);
      expect(during.recorded, "the first run's join is not finished").toBeUndefined();
      second = await bounded(
        startBuiltAssay(args).done,
        PATIENCE_MS,
        "the second run to end while the first is paused",
      );
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(first.child.exitCode, "the first run was still going when the second ended").toBeNull();
    const firstDone = await first.done;

    expect(firstDone.code, firstDone.stderr).toBe(INPUT_ERRORS);
    const after = await state();
    expect(after.recorded).toEqual(files.counts);
    expect(after.inputErrors).toBe(files.inputErrors);
    expect(after.samples).toBe(files.counts.joined);
    expect(after.scores).toEqual({ rows: files.counts.joined, distinctKeys: files.counts.joined });
    expect(after.staged, "a finished join leaves nothing staged").toBe(0);
    expect(after.finished).toBe(true);

    expect(second.code, second.stderr).toBe(UNAVAILABLE);
    expect(second.stderr).toContain(`run ${RUN}`);
    expect(second.stderr).toMatch(/another process is joining its answers/);
    expect(second.stderr.trim().split("\n"), "one line, no stack trace").toHaveLength(1);
  });
});
