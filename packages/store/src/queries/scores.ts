import type { ScoreRow } from "@assay/core";
import { resultKeyString } from "../result-key.js";
import type { SqlRunner } from "../sql-runner.js";

// One statement per batch whatever its size: ten array parameters, unnested into rows.
// ON CONFLICT DO NOTHING on the result key makes a redelivered job's write a no-op.
// Parameters $1..$10 are `scoreColumns(rows)`.
export const INSERT_SCORES = `
  INSERT INTO scores (run_id, sample_id, scorer, criterion, repetition, rule, status, value, reason, detail)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[],
                       $6::text[], $7::text[], $8::float8[], $9::text[], $10::jsonb[])
  ON CONFLICT DO NOTHING`;

export async function writeScores(runner: SqlRunner, rows: readonly ScoreRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await runner.query(INSERT_SCORES, scoreColumns(rows));
  return result.rowCount;
}

/** The rows as one array per column, in INSERT_SCORES order. */
export function scoreColumns(rows: readonly ScoreRow[]): unknown[][] {
  return [
    rows.map((r) => r.runId),
    rows.map((r) => r.sampleId),
    rows.map((r) => r.scorer),
    rows.map((r) => r.criterion),
    rows.map((r) => r.repetition),
    rows.map((r) => r.rule),
    rows.map((r) => r.status),
    rows.map((r) => r.value),
    rows.map((r) => r.reason),
    rows.map((r) => (r.detail === null ? null : JSON.stringify(r.detail))),
  ];
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
