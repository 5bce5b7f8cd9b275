import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConfigError } from "@assay/core";
import { limitWasmCompilerMemory } from "@assay/core/heap";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { applyAnalystViews } from "./analyst-views.js";
import { describeError } from "./describe-error.js";
import { assertDiskRoom, guardDiskRoom } from "./disk-room.js";
import { assertMigrated } from "./migration-check.js";
import { migrationsFolder, migrationsSchemaOf } from "./migrations.js";
import { copyTemplateInto, templateArchive } from "./pglite-template.js";
import { pgliteRunner } from "./sql-runner.js";
import { SqlStore } from "./sql-store.js";
import { inspectStoreFolder, StoreFolderError, type StoreFolderState } from "./store-folder.js";
import { lockStoreFolder, type StoreLock, type StoreLockOptions } from "./store-lock.js";

export interface PgliteOptions {
  dataDir: string;
  schema: string | undefined;
  migrate: boolean;
  /** Create the store when the folder is missing or empty; false refuses instead. */
  create: boolean;
  lock: StoreLockOptions;
  /** Free disk the open needs (`OpenStoreOptions.minFreeBytes`). */
  minFreeBytes: number;
}

export async function openPglite(options: PgliteOptions): Promise<SqlStore> {
  const { client, lock } = await createClient(options);
  try {
    return await storeOver(client, lock, options);
  } catch (error) {
    await client.close().catch(() => {});
    await lock.release();
    throw error;
  }
}

async function storeOver(
  client: PGlite,
  lock: StoreLock,
  options: PgliteOptions,
): Promise<SqlStore> {
  const { schema } = options;
  if (schema !== undefined) {
    // PGlite is a single session, so one SET covers every later query.
    await client.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}"`);
  }
  const db = drizzle(client);
  const migrationsSchema = migrationsSchemaOf(schema);
  const runner = pgliteRunner(client);
  const store = new SqlStore(
    {
      driver: { kind: "pglite", client, schema },
      runner,
      db,
      applyMigrations: () => migratePglite(client, schema),
      assertMigrated: () =>
        assertMigrated(runner, {
          where: `in ${options.dataDir}`,
          db: options.dataDir,
          schema,
          migrationsSchema,
        }),
      // Its queries run in this process and end with it.
      cancelQueries: async () => {},
      // The lock goes only once PGlite has written everything and let go of its files.
      close: () => client.close().finally(() => lock.release()),
    },
    false,
  );
  if (options.migrate) await store.migrate();
  return store;
}

/**
 * Applies every migration not yet applied to an embedded store (in `schema`, else the
 * default one), then the analyst views when the store holds an older version of them. The
 * build's template cluster is migrated with it too, so that a new store starts migrated and
 * only a store made by an older version has migrations left to run.
 */
export async function migratePglite(client: PGlite, schema: string | undefined): Promise<void> {
  await migrate(drizzle(client), {
    migrationsFolder: migrationsFolder(),
    migrationsSchema: migrationsSchemaOf(schema),
  });
  await applyAnalystViews({ ...pgliteRunner(client), exec: (script) => client.exec(script) });
}

// Postgres' default 128 MB of shared buffers lives inside the process here, and WASM memory
// never shrinks: 16 MB takes ~140 MB off the store's resident memory at open and ~40 MB
// off a 100k-sample run, with the same write throughput (measured with bench:local's data).
const EMBEDDED_SETTINGS = "shared_buffers=16MB";

async function createClient(options: PgliteOptions): Promise<{ client: PGlite; lock: StoreLock }> {
  const { dataDir, create } = options;
  const inMemory = dataDir.startsWith("memory://");
  const location = inMemory ? dataDir : resolve(dataDir);
  if (inMemory) return { client: await createPglite(location, "empty"), lock: NO_LOCK };
  // A missing store is refused before a lock file is made beside it.
  if (!create) refuseMissing(location, await inspectStoreFolder(location));
  else await mkdir(dirname(location), { recursive: true });
  assertDiskRoom(location, options.minFreeBytes);
  const lock = await lockStoreFolder(location, options.lock);
  try {
    // Looked at again under the lock: another process may have created it meanwhile.
    const state = await inspectStoreFolder(location);
    if (!create) refuseMissing(location, state);
    // Refused before PGlite starts: on a full disk its start-up alone can hang.
    assertDiskRoom(location, options.minFreeBytes);
    const client = await createPglite(location, state);
    guardDiskRoom(client, location);
    return { client, lock };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

const NO_LOCK: StoreLock = { release: async () => {} };

function refuseMissing(location: string, state: StoreFolderState): void {
  if (state === "store") return;
  throw new StoreFolderError(
    `No embedded store in ${location}: the folder ${state === "missing" ? "does not exist" : "is empty"}. ` +
      "Pass the folder of an existing store.",
  );
}

async function createPglite(location: string, state: StoreFolderState): Promise<PGlite> {
  const inMemory = location.startsWith("memory://");
  try {
    let template: Blob | undefined;
    if (inMemory) template = await templateArchive();
    else {
      if (state !== "store" && !(await copyTemplateInto(location))) {
        await mkdir(location, { recursive: true });
      }
    }
    limitWasmCompilerMemory();
    return await PGlite.create(location, {
      postgresqlconf: EMBEDDED_SETTINGS,
      ...(template !== undefined && { loadDataDir: template }),
    });
  } catch (error) {
    throw new ConfigError(
      `Cannot open the embedded store in ${location}: ${describeError(error)}. ` +
        "Check that the folder is writable and not used by another Assay process.",
    );
  }
}
