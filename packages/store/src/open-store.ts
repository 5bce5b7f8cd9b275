import { ConfigError } from "@assay/core";
import { MIN_FREE_BYTES } from "./disk-room.js";
import { serverConnection } from "./libpq-options.js";
import type { Store } from "./store.js";
import type { StoreLockOptions } from "./store-lock.js";

export interface OpenStoreOptions {
  /** Postgres server URL. When absent, the embedded PGlite store is used. */
  databaseUrl?: string;
  /**
   * Folder of the embedded store (PGlite only). Default ".assay". A missing or empty folder
   * becomes a new store; a folder holding anything else is refused (StoreFolderError).
   */
  dataDir?: string;
  /**
   * Schema holding every table (its `search_path`), created if missing when migrations are
   * applied. Default: the server's search_path. Tests pass a random one to stay apart.
   */
  schema?: string;
  /** Apply pending migrations on open. Default: true for PGlite, false for Postgres. */
  migrate?: boolean;
  /**
   * Postgres only: the server cancels any statement that runs longer than this (ms), so a
   * query planned badly cannot hold a core for hours. Default: no limit.
   */
  statementTimeoutMs?: number;
  /** Most connections to Postgres at once. Default 10. */
  poolSize?: number;
  /**
   * Create what is missing: the embedded store's folder and database, the schema (as it is
   * migrated: a schema without tables is refused anyway). Default
   * true; commands that only read pass false, so a mistyped target is an error, not a new
   * empty store.
   */
  create?: boolean;
  /**
   * The embedded store's lock: who is asking (shown to a process that finds it held), and
   * how long to wait for another process to let it go (default 0: refuse at once).
   */
  lock?: Partial<StoreLockOptions>;
  /**
   * The embedded store only: free disk under it that the open needs, else DiskFullError.
   * Default MIN_FREE_BYTES; `assay prune` passes PRUNE_MIN_FREE_BYTES, so that a full disk
   * can be freed by pruning. Bulk writes keep checking for MIN_FREE_BYTES.
   */
  minFreeBytes?: number;
}

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  // Each driver (and its drizzle adapter) is loaded only when used: together they are a
  // good part of a command's start-up time.
  if (options.databaseUrl !== undefined) {
    // A search_path in the URL's libpq options names the schema as --db-schema does.
    const server = serverConnection(options.databaseUrl, options.schema);
    const { openPostgres } = await import("./open-postgres.js");
    return openPostgres({
      databaseUrl: server.connectionString,
      connectionOptions: server.options,
      schema: checkSchemaName(server.schema),
      migrate: options.migrate ?? false,
      poolSize: options.poolSize ?? 10,
      create: options.create ?? true,
      statementTimeoutMs: options.statementTimeoutMs,
    });
  }
  const { openPglite } = await import("./open-pglite.js");
  return openPglite({
    dataDir: options.dataDir ?? ".assay",
    schema: checkSchemaName(options.schema),
    migrate: options.migrate ?? true,
    create: options.create ?? true,
    lock: { command: "assay", waitMs: 0, ...options.lock },
    minFreeBytes: options.minFreeBytes ?? MIN_FREE_BYTES,
  });
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Schemas that are not Assay's to write into: Postgres's own (every `pg_` name is reserved
 * to it: pg_catalog, pg_toast, pg_temp_N) and information_schema, and the one where the
 * migration tool (drizzle) keeps its bookkeeping for a store without `--db-schema`.
 */
const RESERVED_SCHEMA = /^(pg_.*|information_schema|drizzle)$/;

/**
 * The name goes into SQL and a connection option unquoted, so only plain names pass; a
 * reserved one is refused, whichever command is given it.
 */
export function checkSchemaName(schema: string | undefined): string | undefined {
  if (schema === undefined) return schema;
  if (!SCHEMA_NAME.test(schema)) {
    throw new ConfigError(
      `Expected \`schema\` to be a lowercase Postgres name (letters, digits, _), got \`${schema}\``,
    );
  }
  if (RESERVED_SCHEMA.test(schema)) {
    throw new ConfigError(
      `The schema \`${schema}\` belongs to ${schema === "drizzle" ? "the migration tool (drizzle keeps its bookkeeping there)" : "Postgres itself"}: ` +
        "give --db-schema a schema of Assay's own, e.g. --db-schema assay.",
    );
  }
  return schema;
}
