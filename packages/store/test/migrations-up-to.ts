import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrationsFolder } from "../src/migrations.js";

/**
 * The migrations up to and including number `last`, as a folder drizzle's migrator reads:
 * a store made with it is a store of the version that had no later migration.
 */
export function migrationsUpTo(last: number): string {
  const folder = mkdtempSync(join(tmpdir(), `assay-migrations-${last}-`));
  cpSync(migrationsFolder(), folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as {
    entries: { idx: number }[];
  };
  journal.entries = journal.entries.filter((entry) => entry.idx <= last);
  writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}
