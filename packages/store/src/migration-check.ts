import { ConfigError } from "@assay/core";
import { journalTimestamps, migrationsFolder } from "./migrations.js";
import type { SqlRunner } from "./sql-runner.js";

const UNDEFINED_TABLE = "42P01";

/**
 * Throws a ConfigError unless every generated migration has been applied. Compares
 * drizzle's bookkeeping with the journal, which is how drizzle itself decides what to run.
 */
export async function assertMigrated(
  runner: SqlRunner,
  migrationsSchema: string,
  where: string,
): Promise<void> {
  const expected = journalTimestamps(migrationsFolder());
  const applied = await lastAppliedMigration(runner, migrationsSchema);
  const missing = expected.filter((when) => applied === null || when > applied).length;
  if (missing === 0) return;
  const state =
    applied === null ? "has no Assay tables yet" : `is ${missing} migration(s) behind this version`;
  throw new ConfigError(`The database ${where} ${state}: run \`assay migrate\` first.`);
}

async function lastAppliedMigration(runner: SqlRunner, schema: string): Promise<number | null> {
  try {
    const { rows } = await runner.query<{ last: string | null }>(
      `SELECT max(created_at)::text AS last FROM "${schema}"."__drizzle_migrations"`,
    );
    const last = rows[0]?.last;
    return last == null ? null : Number(last);
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw error;
  }
}
