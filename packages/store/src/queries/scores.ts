import {
  discreteScoreOfDistributions,
  distributionsIn,
  RESULT_KEY_FIELDS,
  type ResultKey,
  resultKeyText,
  type ScoreRow,
} from "@assay/core";
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
  return bulkInsert(target, [bulkPart(SCORE_COLUMNS, storedScoreRows(rows))], (from) =>
    countedInsert(SCORE_COLUMNS, from),
  );
}

/** A score row as the `scores` table holds it. */
export interface StoredScoreRow extends ScoreRow {
  discreteLevel: number | null;
}

/** The rows with their discrete level (column `discrete_level`), for selection to read. */
export function storedScoreRows(rows: readonly ScoreRow[]): StoredScoreRow[] {
  // Written out rather than spread: a spread copy took ~1 µs a row, once per result.
  return rows.map((row) => ({
    runId: row.runId,
    sampleId: row.sampleId,
    scorer: row.scorer,
    criterion: row.criterion,
    repetition: row.repetition,
    rule: row.rule,
    status: row.status,
    value: row.value,
    reason: row.reason,
    detail: row.detail,
    discreteLevel: storedDiscreteLevel(row.detail),
  }));
}

/**
 * `discreteScoreOf(detail)`, as selection would work it out from the stored detail. Null
 * (selection then reads the detail itself) when a distribution holds a value that JSON
 * stores differently (NaN, an infinity or a hole becomes null, which is no distribution).
 */
export function storedDiscreteLevel(detail: ScoreRow["detail"]): number | null {
  if (typeof detail !== "object" || detail === null || !Object.hasOwn(detail, "criteria")) {
    return null;
  }
  const distributions = distributionsIn(detail);
  for (const distribution of distributions) {
    for (let i = 0; i < distribution.length; i += 1) {
      if (!Number.isFinite(distribution[i])) return null;
    }
  }
  return discreteScoreOfDistributions(distributions);
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
