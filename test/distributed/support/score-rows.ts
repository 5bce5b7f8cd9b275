import { DATABASE_URL } from "@assay/test-support/services";
import pg from "pg";

/** Every score row of a run in key order, without its timestamp, for comparing runs. */
export async function scoreRowsOf(
  schema: string,
  runId: string,
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query(
      `SELECT sample_id, scorer, criterion, repetition, rule, status, value, reason, detail
         FROM "${schema}".scores WHERE run_id = $1
        ORDER BY sample_id, scorer, criterion, repetition`,
      [runId],
    );
    return result.rows;
  } finally {
    await client.end();
  }
}
