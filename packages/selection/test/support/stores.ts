import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@assay/store";
import pg from "pg";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestStore {
  store: Store;
  /** Closes the store and removes its folder or schema. */
  dispose(): Promise<void>;
}

/** A migrated store of each driver, each in its own folder or schema. */
export const DRIVERS: Record<"pglite" | "postgres", () => Promise<TestStore>> = {
  async pglite() {
    const dir = await mkdtemp(join(tmpdir(), "assay-selection-"));
    const store = await openStore({ dataDir: dir });
    return {
      store,
      dispose: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  async postgres() {
    const schema = `assay_test_${randomUUID().replaceAll("-", "")}`;
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    return {
      store,
      dispose: async () => {
        await store.close();
        const client = new pg.Client({ connectionString: DATABASE_URL });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  },
};
