import pg from "pg";

/**
 * The schemas of the database at `databaseUrl` whose Assay `runs` table holds `runId`, for
 * a command that did not find the run where it looked (no `--db-schema`, or another one):
 * it can then name the flag that finds it. Schemas the connection may not read are passed
 * over.
 */
export async function schemasHoldingRun(databaseUrl: string, runId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string }>(
      `SELECT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname = 'runs' AND c.relkind IN ('r', 'p') AND has_table_privilege(c.oid, 'SELECT')
        ORDER BY n.nspname`,
    );
    const holding: string[] = [];
    for (const { schema } of rows) {
      const found = await client
        .query(`SELECT 1 FROM ${client.escapeIdentifier(schema)}.runs WHERE id = $1`, [runId])
        .catch(() => ({ rowCount: 0 }));
      if ((found.rowCount ?? 0) > 0) holding.push(schema);
    }
    return holding;
  } finally {
    await client.end().catch(() => {});
  }
}
