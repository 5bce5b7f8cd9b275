import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import pg from "pg";
import { DATABASE_URL } from "./database-url.js";

// The store every test talks to: a temp PGlite folder, or its own schema on the local
// Postgres server (CI starts it: .ci/services.sh).
export { DATABASE_URL };

export type Driver = "pglite" | "postgres";
export const DRIVER_NAMES: readonly Driver[] = ["pglite", "postgres"];

export interface TestStore {
  store: Store;
  /** Closes the store and removes its folder or schema. */
  dispose(): Promise<void>;
}

/** A Postgres schema of its own for one test; drop it with `dropSchema`. */
export function freshSchema(): string {
  return `assay_test_${randomUUID().replaceAll("-", "")}`;
}

/**
 * Partitions dropped per statement. A run has a partition of each per-run table, with its
 * indexes and TOAST table, and one statement locks all it drops until it ends: dropping a
 * schema of a few hundred runs at once can overflow the server's shared lock table (64
 * locks × max_connections by default), the more so while another test file does the same.
 */
const PARTITIONS_PER_DROP = 100;

export async function dropSchema(schema: string, url = DATABASE_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ name: string }>(
        `SELECT format('%I.%I', n.nspname, c.relname) AS name
           FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
          LIMIT ${PARTITIONS_PER_DROP}`,
        [schema],
      );
      if (rows.length === 0) break;
      await client.query(`DROP TABLE IF EXISTS ${rows.map((row) => row.name).join(", ")}`);
    }
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Whether the schema exists: a refused command must not leave an empty one behind. */
export async function schemaExists(schema: string, url = DATABASE_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [
      schema,
    ]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}

/** A migrated, empty store of the given driver. */
export async function openTestStore(driver: Driver): Promise<TestStore> {
  if (driver === "pglite") {
    const dir = await mkdtemp(join(tmpdir(), "assay-test-"));
    const store = await openStore({ dataDir: dir });
    return {
      store,
      dispose: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = freshSchema();
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  return {
    store,
    dispose: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}

/**
 * Runs SQL on the store's own connection (e.g. to read rows or simulate lost ones), with
 * `$1`, `$2`… bound to `params` when given.
 */
export async function queryRows(store: Store, sql: string, params?: unknown[]): Promise<unknown[]> {
  const driver = driverOf(store);
  const result =
    driver.kind === "pglite"
      ? await driver.client.query(sql, params)
      : await driver.pool.query(sql, params);
  return result.rows;
}

/** How many of the run's partitions of the raw tables exist (5 for a run not pruned). */
export async function partitionsOf(store: Store, runId: string): Promise<number> {
  const rows = (await queryRows(
    store,
    `SELECT count(*)::int AS n FROM unnest(assay_run_partitioned_tables()) t
     WHERE to_regclass(quote_ident(assay_run_partition(t, $1))) IS NOT NULL`,
    [runId],
  )) as { n: number }[];
  return rows[0]?.n ?? 0;
}
