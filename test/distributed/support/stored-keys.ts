import { DATABASE_URL } from "@assay/test-support/services";
import pg from "pg";

/** Score rows of a run and how many distinct result keys they hold: equal when none doubled. */
export interface StoredKeys {
  rows: number;
  distinctKeys: number;
}

/**
 * Counts a run's score rows on a server (the shared one unless `url` names another). A
 * connection to a server that is gone rejects, which the fault tests use to see it is gone.
 */
export async function storedKeys(options: {
  runId: string;
  schema?: string;
  url?: string;
}): Promise<StoredKeys> {
  const client = new pg.Client({
    connectionString: options.url ?? DATABASE_URL,
    connectionTimeoutMillis: 3000,
  });
  client.on("error", () => {});
  await client.connect();
  const table = options.schema === undefined ? "scores" : `"${options.schema}".scores`;
  try {
    const { rows } = await client.query<StoredKeys>(
      `SELECT count(*)::int AS rows,
              count(DISTINCT (sample_id, scorer, criterion, repetition))::int AS "distinctKeys"
         FROM ${table} WHERE run_id = $1`,
      [options.runId],
    );
    return rows[0] as StoredKeys;
  } finally {
    await client.end();
  }
}

/** The promise, or a rejection naming what was awaited once `ms` have passed. */
export async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
