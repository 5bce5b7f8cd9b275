import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@assay/store";
import pg from "pg";

export const TEST_DATABASE_URL =
  process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface StoreTarget {
  name: "pglite" | "postgres";
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

/** An embedded store in a temp folder. */
export function pgliteTarget(): StoreTarget {
  const dir = mkdtempSync(join(tmpdir(), "assay-pglite-"));
  return {
    name: "pglite",
    open: () => openStore({ dataDir: dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh schema on the test Postgres server, dropped by cleanup. */
export function postgresTarget(): StoreTarget {
  const schema = `test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  return {
    name: "postgres",
    open: () => openStore({ databaseUrl: TEST_DATABASE_URL, schema, migrate: true }),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Runs SQL on the store's own connection, e.g. to simulate lost rows. */
export async function rawQuery(store: Store, sql: string): Promise<void> {
  const driver = store.driver;
  if (driver.kind === "pglite") await driver.client.query(sql);
  else await driver.pool.query(sql);
}
