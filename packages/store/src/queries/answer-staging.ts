import type { AnswerChoice, AnswerJoinCounts } from "@assay/core";
import { type BulkTarget, bulkInsert, bulkPart } from "../bulk/bulk-statement.js";
import { columnList } from "../bulk/column-list.js";
import { countedInsert } from "../bulk/insert-rows.js";
import { answerJoins, answerStaging } from "../schema.js";
import { pgliteRunner, pgRunner } from "../sql-runner.js";
import type { StoreDriver } from "../store-driver.js";

/** One answer line of a batch output, as staged for the join. */
export interface StagedAnswer {
  customId: string;
  file: string;
  line: number;
  /** `answered`, or why the request gave no answer: `errored`, `canceled`, `expired`. */
  outcome: string;
  reason: string;
  model: string | null;
  /** One per choice: its text, or why it has none (stored unscored with that reason). */
  choices: AnswerChoice[];
  /** Uncached input tokens; cached ones are counted apart (the store's convention). */
  inputTokens: number | null;
  cachedInputTokens: number | null;
  /** Input tokens written to the provider's prompt cache, apart from the two above. */
  cacheWriteTokens: number | null;
  /** The part of `cacheWriteTokens` written to a 1-hour cache. */
  cacheWrite1hTokens: number | null;
  outputTokens: number | null;
}

/** A staged line whose custom id an earlier line gave: where that first line is. */
export interface DuplicateAnswer {
  answer: StagedAnswer;
  first: { file: string; line: number };
}

/** What staging a batch came to beside the lines it staged as they were. */
export interface StagingOutcome {
  /** Answered lines whose custom id an earlier answered line gave: not staged. */
  duplicates: DuplicateAnswer[];
  /**
   * Failed lines set aside for another line of their custom id: an answer (which took the
   * place of an earlier failure), or a failure staged before.
   */
  retried: number;
}

const ANSWER_COLUMNS = columnList(answerStaging, [
  "runId",
  "customId",
  "file",
  "line",
  "outcome",
  "reason",
  "model",
  "choices",
  "inputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "cacheWrite1hTokens",
  "outputTokens",
]);

/** The store's bulk path for a driver: COPY for large batches on either store. */
function bulkTargetOf(driver: StoreDriver): BulkTarget {
  return driver.kind === "postgres"
    ? { runner: pgRunner(driver.pool), pool: driver.pool }
    : { runner: pgliteRunner(driver.client), pool: undefined, pglite: driver.client };
}

function runnerOfDriver(driver: StoreDriver) {
  return bulkTargetOf(driver).runner;
}

/** Forgets what an earlier attempt staged: each attempt joins the answer files it is given. */
export async function clearStagedAnswers(driver: StoreDriver, runId: string): Promise<void> {
  await runnerOfDriver(driver).query("DELETE FROM answer_staging WHERE run_id = $1", [runId]);
}

/**
 * Stages answers whose custom ids are distinct within the call. Against a custom id staged
 * before, a request is answered once: an answer takes the place of a staged failure (the
 * retry wins, whichever file came first), a failure is set aside for what is staged, and
 * an answer to an answered id is a duplicate naming the first line, which stays.
 */
export async function stageAnswers(
  driver: StoreDriver,
  runId: string,
  answers: readonly StagedAnswer[],
): Promise<StagingOutcome> {
  const outcome: StagingOutcome = { duplicates: [], retried: 0 };
  if (answers.length === 0) return outcome;
  const inserted = await insertStaged(driver, runId, answers);
  if (inserted === answers.length) return outcome;
  const { rows: stored } = await runnerOfDriver(driver).query<{
    custom_id: string;
    file: string;
    line: number;
    outcome: string;
  }>(
    "SELECT custom_id, file, line, outcome FROM answer_staging WHERE run_id = $1 AND custom_id = ANY($2::text[])",
    [runId, answers.map((answer) => answer.customId)],
  );
  const firstOf = new Map(stored.map((row) => [row.custom_id, row]));
  const retries: StagedAnswer[] = [];
  for (const answer of answers) {
    const first = firstOf.get(answer.customId);
    if (first === undefined || (first.file === answer.file && first.line === answer.line)) continue;
    if (answer.outcome !== "answered") outcome.retried += 1;
    else if (first.outcome !== "answered") {
      outcome.retried += 1;
      retries.push(answer);
    } else outcome.duplicates.push({ answer, first: { file: first.file, line: first.line } });
  }
  if (retries.length > 0) {
    await runnerOfDriver(driver).query(
      "DELETE FROM answer_staging WHERE run_id = $1 AND custom_id = ANY($2::text[])",
      [runId, retries.map((answer) => answer.customId)],
    );
    await insertStaged(driver, runId, retries);
  }
  return outcome;
}

/** Inserts the lines whose custom id is not staged yet; how many it inserted. */
function insertStaged(
  driver: StoreDriver,
  runId: string,
  answers: readonly StagedAnswer[],
): Promise<number> {
  const rows = answers.map((answer) => ({ runId, ...answer }));
  return bulkInsert(bulkTargetOf(driver), [bulkPart(ANSWER_COLUMNS, rows)], (from) =>
    countedInsert(ANSWER_COLUMNS, from),
  );
}

interface StagedRow {
  custom_id: string;
  file: string;
  line: number;
  outcome: string;
  reason: string;
  model: string | null;
  choices: AnswerChoice[] | string;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  cache_write_1h_tokens: number | null;
  output_tokens: number | null;
}

/**
 * The staged answers for these custom ids, marked as taken by a reference row, in one
 * statement: what the join runs once per chunk of reference rows.
 */
export async function takeStagedAnswers(
  driver: StoreDriver,
  runId: string,
  customIds: readonly string[],
): Promise<Map<string, StagedAnswer>> {
  if (customIds.length === 0) return new Map();
  const { rows } = await runnerOfDriver(driver).query<StagedRow>(
    `UPDATE answer_staging SET matched = true
     WHERE run_id = $1 AND custom_id = ANY($2::text[])
     RETURNING custom_id, file, line, outcome, reason, model, choices,
               input_tokens, cached_input_tokens, cache_write_tokens, cache_write_1h_tokens, output_tokens`,
    [runId, customIds],
  );
  return new Map(rows.map((row) => [row.custom_id, answerOf(row)]));
}

/**
 * Answered lines no reference row took, a page at a time in custom id order (start after
 * `after`, '' for the first page). Failed requests are counted as failed, not here.
 */
export async function unmatchedAnswers(
  driver: StoreDriver,
  runId: string,
  after: string,
  limit: number,
): Promise<StagedAnswer[]> {
  const { rows } = await runnerOfDriver(driver).query<StagedRow>(
    `SELECT custom_id, file, line, outcome, reason, model, choices,
            input_tokens, cached_input_tokens, cache_write_tokens, cache_write_1h_tokens, output_tokens
     FROM answer_staging
     WHERE run_id = $1 AND NOT matched AND outcome = 'answered' AND custom_id > $2
     ORDER BY custom_id LIMIT ${Math.trunc(limit)}`,
    [runId, after],
  );
  return rows.map(answerOf);
}

/**
 * Staged failures (errored, canceled, expired requests no line answered), a page at a time
 * in custom id order (start after `after`, '' for the first page): each is reported once
 * every file is staged, since a retry in a later file may answer it.
 */
export async function stagedFailures(
  driver: StoreDriver,
  runId: string,
  after: string,
  limit: number,
): Promise<StagedAnswer[]> {
  const { rows } = await runnerOfDriver(driver).query<StagedRow>(
    `SELECT custom_id, file, line, outcome, reason, model, choices,
            input_tokens, cached_input_tokens, cache_write_tokens, output_tokens
     FROM answer_staging
     WHERE run_id = $1 AND outcome <> 'answered' AND custom_id > $2
     ORDER BY custom_id LIMIT ${Math.trunc(limit)}`,
    [runId, after],
  );
  return rows.map(answerOf);
}

function answerOf(row: StagedRow): StagedAnswer {
  return {
    customId: row.custom_id,
    file: row.file,
    line: Number(row.line),
    outcome: row.outcome,
    reason: row.reason,
    model: row.model,
    choices: typeof row.choices === "string" ? JSON.parse(row.choices) : row.choices,
    inputTokens: row.input_tokens === null ? null : Number(row.input_tokens),
    cachedInputTokens: row.cached_input_tokens === null ? null : Number(row.cached_input_tokens),
    cacheWriteTokens: row.cache_write_tokens === null ? null : Number(row.cache_write_tokens),
    cacheWrite1hTokens:
      row.cache_write_1h_tokens === null ? null : Number(row.cache_write_1h_tokens),
    outputTokens: row.output_tokens === null ? null : Number(row.output_tokens),
  };
}

const JOIN_COLUMNS = columnList(answerJoins, [
  "runId",
  "idPrefix",
  "joined",
  "missingAnswers",
  "unmatchedAnswers",
  "failedRequests",
  "duplicateAnswers",
  "retriedFailures",
  "unjoinedUsage",
]);

/**
 * Records what a complete join came to, and the `--answers-id-prefix` it read custom ids
 * with, replacing an earlier attempt's figures. The answered lines a reference row took
 * stay staged, so `assay show` can read a joined answer back (with its file and line)
 * until the run is pruned; the rest (failures, unmatched and set-aside lines) go, as the
 * input errors and counts now say what they said.
 */
export async function writeAnswerJoin(
  driver: StoreDriver,
  runId: string,
  counts: AnswerJoinCounts,
  idPrefix: string,
): Promise<void> {
  const names = JOIN_COLUMNS.names;
  const updates = names
    .slice(1)
    .map((name) => `${name} = excluded.${name}`)
    .join(", ");
  const runner = runnerOfDriver(driver);
  await runner.query(
    `INSERT INTO answer_joins (${names.join(", ")})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
     ON CONFLICT (run_id) DO UPDATE SET ${updates}`,
    [
      runId,
      idPrefix,
      counts.joined,
      counts.missingAnswers,
      counts.unmatchedAnswers,
      counts.failedRequests,
      counts.duplicateAnswers,
      counts.retriedFailures,
      JSON.stringify(counts.unjoined),
    ],
  );
  await runner.query(
    "DELETE FROM answer_staging WHERE run_id = $1 AND NOT (matched AND outcome = 'answered')",
    [runId],
  );
}
