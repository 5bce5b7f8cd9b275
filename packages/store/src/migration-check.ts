import { ConfigError, redactUrl, shellWord } from "@assay/core";
import { analystViewsBehind } from "./analyst-views.js";
import { journalTimestamps, migrationsFolder } from "./migrations.js";
import type { SqlRunner } from "./sql-runner.js";

const UNDEFINED_TABLE = "42P01";
const UNDEFINED_SCHEMA = "3F000";

/** A store whose migrations are missing or behind (see `assertMigrated`). */
export class UnmigratedStoreError extends ConfigError {
  override name = "UnmigratedStoreError";
}

/** Where a store's tables are: the database (`where`) and the schema asked for, if any. */
export interface StorePlace {
  where: string;
  /** What `--db` takes to open this store again: the server's URL or the store's folder. */
  db: string;
  schema: string | undefined;
  migrationsSchema: string;
}

/**
 * Throws a ConfigError unless every generated migration has been applied and the analyst
 * views are not older than this version's. Compares drizzle's bookkeeping with the
 * journal, which is how drizzle itself decides what to run, and the views' recorded
 * version with the file's (analyst-views.ts).
 * The message names the database and the schema, and the command that fixes it: a worker
 * pointed at the wrong schema of the right server must not read as a missing database.
 */
export async function assertMigrated(runner: SqlRunner, place: StorePlace): Promise<void> {
  const expected = journalTimestamps(migrationsFolder());
  const applied = await lastAppliedMigration(runner, place.migrationsSchema);
  const missing = expected.filter((when) => applied === null || when > applied).length;
  if (missing === 0 && !(await analystViewsBehind(runner))) return;
  const state =
    applied === null
      ? "has no Assay tables yet"
      : missing === 0
        ? "has analyst views older than this version's"
        : `is ${missing} migration(s) behind this version`;
  const schema = await describeSchema(runner, place.schema);
  throw new UnmigratedStoreError(
    `The database ${place.where}, ${schema}, ${state}: run \`${migrateCommand(place)}\` first.`,
  );
}

/** The command that brings this store up to date, as it can be pasted into a shell. */
function migrateCommand(place: StorePlace): string {
  const db = redactUrl(place.db);
  const words = ["assay", "migrate", "--db", shellWord(db)];
  if (place.schema !== undefined) words.push("--db-schema", shellWord(place.schema));
  // Messages never show a password; the person pasting puts it back.
  if (db !== place.db) words.push("# put the password back where *** stands");
  return words.join(" ");
}

async function lastAppliedMigration(runner: SqlRunner, schema: string): Promise<number | null> {
  try {
    const { rows } = await runner.query<{ last: string | null }>(
      `SELECT max(created_at)::text AS last FROM "${schema}"."__drizzle_migrations"`,
    );
    const last = rows[0]?.last;
    return last == null ? null : Number(last);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return null;
    throw error;
  }
}

/** The schema given, or the one the server's search_path resolves to. */
async function describeSchema(runner: SqlRunner, schema: string | undefined): Promise<string> {
  if (schema !== undefined) return `schema ${schema}`;
  const { rows } = await runner.query<{ name: string | null }>("SELECT current_schema() AS name");
  const name = rows[0]?.name;
  return name == null
    ? "no schema on its search_path"
    : `schema ${name} (its search_path; choose another with --db-schema)`;
}
