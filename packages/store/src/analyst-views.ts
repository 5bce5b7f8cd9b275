import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { migrationsFolder } from "./migrations.js";
import type { SqlRunner } from "./sql-runner.js";

/**
 * The analyst views live in one file, `migrations/analyst-views.sql`, applied after the
 * numbered migrations whenever its text differs from the text last applied (a repeatable
 * migration): a view is changed in that file alone, not restated whole in a new migration.
 */
export const ANALYST_VIEWS_FILE = "analyst-views.sql";

/** The file's text and its sha256, read once per process. */
let cached: { text: string; sha256: string } | undefined;
export function analystViewsSql(): { text: string; sha256: string } {
  if (cached === undefined) {
    const text = readFileSync(join(migrationsFolder(), ANALYST_VIEWS_FILE), "utf8");
    cached = { text, sha256: createHash("sha256").update(text).digest("hex") };
  }
  return cached;
}

/** A connection that runs a script of several statements (PGlite's `exec`, pg's simple query). */
export interface ScriptRunner extends SqlRunner {
  exec(script: string): Promise<unknown>;
}

/**
 * Applies the views file unless this store already holds its text. Runs on the migrating
 * connection after the numbered migrations (under the server's migration lock), in one
 * transaction: a view the file cannot replace (a column dropped or renamed) fails the
 * migration and leaves every view as it was.
 */
export async function applyAnalystViews(connection: ScriptRunner): Promise<void> {
  const { text, sha256 } = analystViewsSql();
  if ((await appliedViewsSha256(connection)) === sha256) return;
  await connection.exec("BEGIN");
  try {
    await connection.exec(text);
    await connection.query("DELETE FROM analyst_views_applied");
    await connection.query("INSERT INTO analyst_views_applied (sha256) VALUES ($1)", [sha256]);
    await connection.exec("COMMIT");
  } catch (error) {
    await connection.exec("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** Whether the store's views are older than this version's file (its migrations all applied). */
export async function analystViewsBehind(runner: SqlRunner): Promise<boolean> {
  return (await appliedViewsSha256(runner)) !== analystViewsSql().sha256;
}

async function appliedViewsSha256(runner: SqlRunner): Promise<string | undefined> {
  const { rows } = await runner.query<{ sha256: string }>(
    "SELECT sha256 FROM analyst_views_applied",
  );
  return rows[0]?.sha256;
}
