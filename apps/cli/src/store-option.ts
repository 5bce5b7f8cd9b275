import { ConfigError, readEnv } from "@assay/core";
import { allowServerHeapGrowth } from "@assay/core/heap";
import { describeHolder, openStore, type Store } from "@assay/store";
import { CliExit, ExitCode } from "./exit-codes.js";
import { writeErr } from "./output.js";

export interface StoreTarget {
  databaseUrl?: string;
  dataDir?: string;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * `--db` takes a postgres:// URL or a folder for the embedded store. Without it,
 * DATABASE_URL wins, then the embedded store in ASSAY_DATA_DIR (default .assay/). Another
 * kind of URL is refused rather than taken for a folder name.
 */
export function storeTarget(db: string | undefined): StoreTarget {
  const env = readEnv();
  const chosen = db ?? env.DATABASE_URL;
  if (chosen === undefined) return { dataDir: env.ASSAY_DATA_DIR };
  if (POSTGRES_URL.test(chosen)) return { databaseUrl: chosen };
  if (ANY_URL.test(chosen) && !chosen.startsWith("memory://")) {
    const message = `Expected ${db !== undefined ? "--db" : "DATABASE_URL"} to be a postgres:// URL or a folder, got "${chosen}".`;
    if (db !== undefined) throw new CliExit(ExitCode.usage, message);
    throw new ConfigError(message);
  }
  return { dataDir: chosen };
}

export function describeStore(target: StoreTarget): string {
  return target.databaseUrl !== undefined ? "postgres" : `embedded store in ${target.dataDir}/`;
}

export interface OpenStoreForOptions {
  /** False for `assay migrate` only: it opens the store to apply the migrations. */
  migrate?: boolean;
  create?: boolean;
  /** `--db-schema`: the Postgres schema holding the tables. */
  schema?: string | undefined;
  /** Postgres only: the server cancels a statement running longer (ms). */
  statementTimeoutMs?: number | undefined;
  /** The embedded store only: free disk the open needs (`OpenStoreOptions.minFreeBytes`). */
  minFreeBytes?: number;
}

/**
 * Opens the store for `command`. `create: false` is for commands that only read (report,
 * export, show): a missing store is then an error instead of a new empty one, and an
 * embedded store that another process holds is waited for (ASSAY_STORE_WAIT seconds,
 * saying so on stderr), since a read is short. A command that writes (run, migrate) is
 * refused at once instead: it could be waiting for hours behind another run. A store
 * whose migrations are missing or behind is refused (exit 5, one line naming the database
 * and the schema), except by `assay migrate`, which applies them.
 */
export async function openStoreFor(
  db: string | undefined,
  command: string,
  options: OpenStoreForOptions = {},
): Promise<Store> {
  const target = storeTarget(db);
  const { schema, statementTimeoutMs, ...rest } = options;
  const reads = options.create === false;
  const waitMs = reads ? readEnv().ASSAY_STORE_WAIT * 1000 : 0;
  if (target.databaseUrl !== undefined) allowServerHeapGrowth();
  const store = await openStore({
    ...target,
    ...rest,
    ...(schema !== undefined && { schema }),
    ...(statementTimeoutMs !== undefined && { statementTimeoutMs }),
    lock: {
      command,
      waitMs,
      onWait: (holder) =>
        writeErr(
          `Waiting for the ${describeStore(target)}: it is in use by ${describeHolder(holder)}; giving up after ${waitMs / 1000} s.\n`,
        ),
    },
  });
  if (options.migrate === false) return store;
  return refuseUnmigrated(store);
}

/**
 * Checks the store's migrations before a command starts work, so a worker or producer
 * pointed at a schema without tables stops at once with one line, instead of starting and
 * failing every job.
 */
export async function refuseUnmigrated(store: Store): Promise<Store> {
  try {
    await store.assertMigrated();
    return store;
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}
