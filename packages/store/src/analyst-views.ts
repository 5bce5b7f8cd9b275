import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { migrationsFolder } from "./migrations.js";
import type { SqlRunner } from "./sql-runner.js";

/**
 * The analyst views live in one file, `migrations/analyst-views.sql`, applied after the
 * numbered migrations when the store holds an older version of it (a repeatable migration):
 * a view is changed in that file alone, not restated whole in a new migration.
 */
export const ANALYST_VIEWS_FILE = "analyst-views.sql";

export interface AnalystViewsFile {
  text: string;
  /** From the file's first line, `-- analyst-views version: <n>`. */
  version: number;
  sha256: string;
}

let cached: AnalystViewsFile | undefined;

/** The file's text, version and sha256, read once per process. */
export function analystViewsFile(): AnalystViewsFile {
  if (cached === undefined) {
    const file = join(migrationsFolder(), ANALYST_VIEWS_FILE);
    const text = readFileSync(file, "utf8");
    const version = /^-- analyst-views version: (\d+)\n/.exec(text)?.[1];
    if (version === undefined) {
      throw new Error(`${file} must begin with "-- analyst-views version: <n>"`);
    }
    cached = {
      text,
      version: Number(version),
      sha256: createHash("sha256").update(text).digest("hex"),
    };
  }
  return cached;
}

/** A connection that runs a script of several statements (PGlite's `exec`, pg's simple query). */
export interface ScriptRunner extends SqlRunner {
  exec(script: string): Promise<unknown>;
}

/**
 * Applies the views file when the store holds an older version of it. Runs on the migrating
 * connection after the numbered migrations (under the server's migration lock), in one
 * transaction: a view the file cannot replace (a column dropped or renamed) fails the
 * migration and leaves every view as it was.
 */
export async function applyAnalystViews(connection: ScriptRunner): Promise<void> {
  const { text, version, sha256 } = analystViewsFile();
  if (!(await analystViewsBehind(connection))) return;
  await connection.exec("BEGIN");
  try {
    await connection.exec(text);
    await connection.query("DELETE FROM analyst_views_applied");
    await connection.query("INSERT INTO analyst_views_applied (version, sha256) VALUES ($1, $2)", [
      version,
      sha256,
    ]);
    await connection.exec("COMMIT");
  } catch (error) {
    await connection.exec("ROLLBACK").catch(() => {});
    throw error;
  }
}

/**
 * Whether the store's views are older than this version's file: none applied yet, an older
 * version, or this version's number with other text (a file edited without raising it).
 */
export async function analystViewsBehind(runner: SqlRunner): Promise<boolean> {
  const { version, sha256 } = analystViewsFile();
  const { rows } = await runner.query<{ version: number; sha256: string }>(
    "SELECT version, sha256 FROM analyst_views_applied",
  );
  const applied = rows[0];
  if (applied === undefined) return true;
  return applied.version < version || (applied.version === version && applied.sha256 !== sha256);
}
