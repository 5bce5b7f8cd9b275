import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExitCode } from "@assay/cli";
import { runAssay } from "@assay/test-support/run-assay";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";

// Migration 0020 makes a partition for every run not pruned, and drizzle applies pending
// migrations in one transaction: on a server whose lock table is too small for its runs,
// `assay migrate` fails whole, applies nothing, and says which setting to raise; raised,
// the same command goes through.

const RUNS = 400;
// 10 lock slots per connection (50, and background processes): fewer than 0020 takes for
// 400 runs.
const SMALL_LOCK_TABLE = ["max_locks_per_transaction = 10"];
const LAST_BEFORE = 19;
const MIGRATIONS = fileURLToPath(new URL("../../migrations", import.meta.url));

let server: OwnPostgres;
const folder = mkdtempSync(join(tmpdir(), "assay-migrations-0019-"));

beforeAll(async () => {
  server = await startPostgres(SMALL_LOCK_TABLE);
  // The store as the version before 0020 left it, with its runs' partitions.
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((entry) => entry.idx <= LAST_BEFORE);
  writeFileSync(journalFile, JSON.stringify(journal));
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: folder });
    for (let run = 0; run < RUNS; run++) {
      // One run per transaction, as the runs were made night after night.
      const id = `'night-${run}'`;
      await client.query(
        `INSERT INTO runs (id, name, dataset, spec, transport)
         VALUES (${id}, 'nightly', 'd.jsonl', '{}', 'local');
         SELECT assay_create_run_partitions(${id})`,
      );
    }
  } finally {
    await client.end();
  }
}, 600_000);

afterAll(async () => {
  await server?.remove();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs SQL on the test's own server; its rows. */
async function onServer<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function appliedMigrations(): Promise<number> {
  const rows = await onServer<{ n: number }>(
    "SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations",
  );
  return rows[0]?.n ?? 0;
}

describe("assay migrate on a server whose lock table cannot hold a partition per run", () => {
  it("applies nothing and names the setting; raised, the same command goes through", async () => {
    expect(await appliedMigrations()).toBe(LAST_BEFORE + 1);

    const refused = await runAssay(["migrate", "--db", server.url]);
    expect(refused.code, refused.stderr).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain("The migrations ran out of the server's lock table");
    expect(refused.stderr).toContain("Raise max_locks_per_transaction");
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    // The fault hit the migration itself: it rolled back whole.
    expect(await appliedMigrations()).toBe(LAST_BEFORE + 1);

    await onServer("ALTER SYSTEM SET max_locks_per_transaction = 256");
    await server.kill();
    await server.restart();

    const migrated = await runAssay(["migrate", "--db", server.url]);
    expect(migrated.code, migrated.stderr).toBe(ExitCode.ok);
    expect(await appliedMigrations()).toBeGreaterThan(LAST_BEFORE + 1);
  });
});
