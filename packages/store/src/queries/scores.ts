import type { ScoreRow } from "@assay/core";
import { type BulkTarget, bulkInsert, bulkPart } from "../bulk/bulk-statement.js";
import { countedInsert } from "../bulk/insert-rows.js";
import { SCORE_COLUMNS } from "../bulk/tables.js";
import { resultKeyString } from "../result-key.js";
import type { SqlRunner } from "../sql-runner.js";

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

export async function storedResultKeys(
  runner: SqlRunner,
  runId: string,
  sampleIds: readonly string[],
): Promise<Set<string>> {
  if (sampleIds.length === 0) return new Set();
  const { rows } = await runner.query<{
    sample_id: string;
    scorer: string;
    criterion: string;
    repetition: number;
  }>(
    `SELECT sample_id, scorer, criterion, repetition FROM scores
     WHERE run_id = $1 AND sample_id = ANY($2::text[])`,
    [runId, sampleIds],
  );
  return new Set(
    rows.map((r) =>
      resultKeyString({
        sampleId: r.sample_id,
        scorer: r.scorer,
        criterion: r.criterion,
        repetition: r.repetition,
      }),
    ),
  );
}

export async function countResults(runner: SqlRunner, runId: string): Promise<number> {
  const { rows } = await runner.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM scores WHERE run_id = $1",
    [runId],
  );
  return rows[0]?.n ?? 0;
}
