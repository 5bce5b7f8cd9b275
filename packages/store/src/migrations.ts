import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const JOURNAL = join("migrations", "meta", "_journal.json");

/**
 * The top-level `migrations/` folder, found by walking up from this file so it works the
 * same from `src/` (tests, tsx) and from `dist/` (built CLI).
 */
export function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, JOURNAL))) return join(dir, "migrations");
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `Cannot find ${JOURNAL} in any folder above ${fileURLToPath(import.meta.url)}`,
      );
    }
    dir = parent;
  }
}

/** `when` of every migration drizzle-kit generated, oldest first (drizzle's own ordering key). */
export function journalTimestamps(folder: string): number[] {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: { when: number }[];
  };
  return journal.entries.map((entry) => entry.when);
}

/** Where drizzle keeps its bookkeeping table: the test schema when given, else "drizzle". */
export function migrationsSchemaOf(schema: string | undefined): string {
  return schema ?? "drizzle";
}
