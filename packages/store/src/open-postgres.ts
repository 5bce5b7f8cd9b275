import { ConfigError, maskSecrets, redactUrl } from "@assay/core";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { applyAnalystViews } from "./analyst-views.js";
import { describeError } from "./describe-error.js";
import { assertMigrated } from "./migration-check.js";
import { migrationsFolder, migrationsSchemaOf } from "./migrations.js";
import { pgRunner } from "./sql-runner.js";
import { SqlStore } from "./sql-store.js";

/** Serializes concurrent `assay migrate` runs (several workers starting at once). */
const MIGRATION_LOCK = 7_305_012_024;

export interface PostgresOptions {
  databaseUrl: string;
  /** libpq `options` for every connection, the schema's search_path among them. */
  connectionOptions: string | undefined;
  schema: string | undefined;
  migrate: boolean;
  poolSize: number;
  /**
   * Create the schema when it is missing, as migrations are applied (an empty schema serves
   * nothing: a store that is not migrated is refused).
   */
  create: boolean;
  /** The server cancels any statement running longer (ms); undefined or 0: no limit. */
  statementTimeoutMs: number | undefined;
}

export async function openPostgres(options: PostgresOptions): Promise<SqlStore> {
  const { databaseUrl, schema } = options;
  const where = `at ${redactUrl(databaseUrl)}`;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize,
    connectionTimeoutMillis: 10_000,
    // Set at connection start, so every pooled connection sees the same tables.
    ...(options.connectionOptions !== undefined && { options: options.connectionOptions }),
    ...(options.statementTimeoutMs !== undefined && {
      statement_timeout: options.statementTimeoutMs,
    }),
  });
  const backends = serverBackends(pool);
  // A connection the server dropped must not crash the process, idle in the pool or
  // checked out (a transaction, a COPY): the pool replaces it and the statement running
  // on it, if any, fails with the error instead. The pool's own listener covers idle
  // connections only, so every connection gets one of its own as it opens.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  await checkConnection(pool, databaseUrl, where);

  const migrationsSchema = migrationsSchemaOf(schema);
  const runner = pgRunner(pool);
  const store = new SqlStore(
    {
      driver: { kind: "postgres", pool, schema },
      runner,
      db: drizzle(pool),
      applyMigrations: () =>
        applyMigrations(pool, migrationsSchema, options.create ? schema : undefined),
      assertMigrated: () =>
        assertMigrated(runner, { where, db: databaseUrl, schema, migrationsSchema }),
      cancelQueries: () => cancelBackends(databaseUrl, [...backends]),
      close: () => pool.end(),
    },
    false,
  );
  if (options.migrate) await store.migrate();
  return store;
}

/** The server process ids of the pool's open connections, kept as they open and close. */
function serverBackends(pool: pg.Pool): Set<number> {
  const pids = new Set<number>();
  const idOf = (client: pg.PoolClient) => (client as unknown as { processID: number }).processID;
  pool.on("connect", (client) => pids.add(idOf(client)));
  pool.on("remove", (client) => pids.delete(idOf(client)));
  return pids;
}

/**
 * Asks the server to cancel whatever these backends are running. A client that exits does
 * not stop its query: the server runs it to the end, holding a core and its locks. The
 * request goes on a connection of its own, since the pool's are busy with the queries.
 */
async function cancelBackends(databaseUrl: string, pids: number[]): Promise<void> {
  if (pids.length === 0) return;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid", [pids]);
  } finally {
    await client.end().catch(() => {});
  }
}

async function checkConnection(pool: pg.Pool, databaseUrl: string, where: string): Promise<void> {
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    // A driver message should never echo the password, but make sure.
    const reason = maskSecrets(describeError(error), [databaseUrl]);
    throw new ConfigError(
      `Cannot connect to Postgres ${where}: ${reason}. Check DATABASE_URL and that the server is running.`,
    );
  }
}

/** Applies the migrations, creating `schema` first when given (under the same lock). */
async function applyMigrations(
  pool: pg.Pool,
  migrationsSchema: string,
  schema: string | undefined,
): Promise<void> {
  // The advisory lock is held by one session, so the migrator must use that same client.
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await migrate(drizzle(client), {
        migrationsFolder: migrationsFolder(),
        migrationsSchema,
      }).catch((error: unknown) => {
        throw lockTableFull(error) ?? error;
      });
      // Without parameters, pg sends a script as one simple query: several statements.
      await applyAnalystViews({ ...pgRunner(client), exec: (script) => client.query(script) });
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * drizzle applies every pending migration in one transaction, and a migration that makes a
 * partition per run (0015, 0020) holds a lock on each until it commits: a server with
 * thousands of unpruned runs can overflow its lock table ("out of shared memory"). Nothing
 * was applied then; the message says what to change.
 */
function lockTableFull(error: unknown): ConfigError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { code, hint } = cause as { code?: unknown; hint?: unknown };
    if (code === OUT_OF_SHARED_MEMORY && String(hint).includes("max_locks_per_transaction")) {
      return new ConfigError(
        "The migrations ran out of the server's lock table: they make a partition for every run not pruned, in one transaction, and none was applied. Raise max_locks_per_transaction on the server (postgresql.conf or ALTER SYSTEM, then restart it; the lock table holds max_locks_per_transaction × max_connections locks, a few per run) or prune old runs with the version in use, then run `assay migrate` again.",
      );
    }
  }
  return undefined;
}

const OUT_OF_SHARED_MEMORY = "53200";
