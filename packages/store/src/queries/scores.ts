import { RESULT_KEY_FIELDS, type ResultKey, resultKeyText, type ScoreRow } from "@assay/core";
import { sql } from "drizzle-orm";
import { type BulkTarget, bulkInsert, bulkPart } from "../bulk/bulk-statement.js";
import { countedInsert } from "../bulk/insert-rows.js";
import { SCORE_COLUMNS } from "../bulk/tables.js";
import { scores } from "../schema.js";
import type { SqlRunner } from "../sql-runner.js";
import { querySql } from "../sql-text.js";

/**
 * One statement per batch whatever its size; ON CONFLICT DO NOTHING on the result key
 * makes a redelivered job's write a no-op. Returns the rows actually inserted.
 */
export async function writeScores(target: BulkTarget, rows: readonly ScoreRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return bulkInsert(target, [bulkPart(SCORE_COLUMNS, rows)], (from) =>
    countedInsert(SCORE_COLUMNS, from),
  );
}

/**
 * The jobs whose result `runId` has not stored, by each one's result key: a resumed run
 * plans only these. Meant for chunks of about 1,000 jobs.
 */
export async function missingJobs<J>(
  runner: SqlRunner,
  runId: string,
  jobs: readonly J[],
  keyOf: (job: J) => ResultKey,
): Promise<J[]> {
  if (jobs.length === 0) return [];
  const keys = jobs.map(keyOf);
  const stored = await storedResultKeys(runner, runId, [...new Set(keys.map((k) => k.sampleId))]);
  return jobs.filter((_, index) => !stored.has(resultKeyText(keys[index] as ResultKey)));
}

/** The result keys the run stored for these samples, as `resultKeyText`. */
async function storedResultKeys(
  runner: SqlRunner,
  runId: string,
  sampleIds: readonly string[],
): Promise<Set<string>> {
  const keyColumns = sql.join(
    RESULT_KEY_FIELDS.map((field) => sql`${scores[field]} AS ${sql.identifier(field)}`),
    sql`, `,
  );
  const { rows } = await querySql<ResultKey>(
    runner,
    sql`SELECT ${keyColumns} FROM ${scores}
        WHERE ${scores.runId} = ${runId} AND ${scores.sampleId} = ANY(${sql.param(sampleIds)}::text[])`,
  );
  return new Set(rows.map(resultKeyText));
}

export async function countResults(runner: SqlRunner, runId: string): Promise<number> {
  const { rows } = await runner.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM scores WHERE run_id = $1",
    [runId],
  );
  return rows[0]?.n ?? 0;
}
