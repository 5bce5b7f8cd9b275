import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { assertRoomToWrite } from "../disk-room.js";
import type { SqlRunner } from "../sql-runner.js";
import { type ColumnList, derivationOf, type RowOf } from "./column-list.js";
import { arrayLiteral, copyText, isArrayType } from "./copy-text.js";

/** Rows for one table of a bulk statement; build one with `bulkPart`. */
export interface BulkPart {
  list: ColumnList;
  rows: readonly object[];
}

/** Rows that carry every column of the list under its key, but the derived ones. */
export function bulkPart<K extends string, D extends K = never>(
  list: ColumnList<K, D>,
  rows: readonly RowOf<Exclude<K, D>>[],
): BulkPart {
  return { list, rows };
}

/**
 * A FROM item that yields a part's rows with the list's column names, under `alias`.
 * A statement is written once against it and runs on either loading path.
 */
export type RowSource = (list: ColumnList, alias: string) => string;

/** Where bulk statements run: the shared runner, plus the client that can COPY. */
export interface BulkTarget {
  runner: SqlRunner;
  /** Set for Postgres: large batches then travel by COPY. */
  pool: pg.Pool | undefined;
  /** Set for the embedded store: large batches then travel by COPY from a blob. */
  pglite?: PGlite | undefined;
}

/**
 * From this many rows on, a Postgres batch is sent by COPY; below it, COPY's extra round
 * trips cost more than array parameters save.
 */
export const COPY_MIN_ROWS = 100;

/**
 * An idempotent insert of every part's rows: it must insert each row unless its key is
 * stored already, and answer one row whose `inserted` column counts the new rows of the
 * first part. Written once against a RowSource, it runs on either loading path.
 */
export type BulkInsertStatement = (from: RowSource) => string;

/**
 * Inserts many rows as ONE atomic, all-or-nothing write; returns the new rows of the
 * first part.
 * - Postgres, large batches: COPY each part straight into its table, in one transaction.
 *   When a key is stored already (a redelivered job, a resumed run, a duplicate id), that
 *   transaction rolls back and the batch goes again by COPY into per-connection staging
 *   tables, merged by `statement`.
 * - PGlite, large batches: COPY each part from a blob straight into its table, in one
 *   transaction (2.4× the rows/s of the array statement for score rows, 2,000 a batch);
 *   when a key is stored already, the array statement below merges the batch instead.
 * - Otherwise (small batches): `statement` over one array parameter per column.
 * Either way a data error fails the whole call and stores nothing, which is what
 * `writeIsolating` needs to find the bad row by splitting the batch.
 */
export async function bulkInsert(
  target: BulkTarget,
  parts: readonly BulkPart[],
  statement: BulkInsertStatement,
): Promise<number> {
  // The embedded store must never run out of disk mid-write (see disk-room.ts).
  if (target.pglite !== undefined) assertRoomToWrite(target.pglite);
  const rows = parts.reduce((total, part) => total + part.rows.length, 0);
  if (target.pool !== undefined && rows >= COPY_MIN_ROWS) {
    const encoded = parts.map((part) => ({
      list: part.list,
      chunks: copyText(part.list, part.rows),
    }));
    try {
      const filled = encoded.filter((part) => part.chunks.length > 0);
      // One COPY is all-or-nothing by itself: no BEGIN and COMMIT, two round trips fewer.
      if (filled.length === 1) await copyAlone(target.pool, filled[0] as EncodedPart);
      else await inTransaction(target.pool, (client) => copyStraight(client, encoded));
      return parts[0]?.rows.length ?? 0;
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    }
    return inTransaction(
      target.pool,
      (client) => copyAndMerge(client, encoded, statement),
      (client) => createStages(client, encoded),
    );
  }
  if (target.pglite !== undefined && rows >= COPY_MIN_ROWS) {
    try {
      await copyFromBlobs(target.pglite, parts);
      return parts[0]?.rows.length ?? 0;
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    }
  }
  const params: unknown[][] = [];
  const firstParam = new Map<ColumnList, number>();
  for (const part of parts) {
    firstParam.set(part.list, params.length + 1);
    params.push(...columnArrays(part));
  }
  const unnest: RowSource = (list, alias) => {
    const first = firstParam.get(list);
    if (first === undefined) throw new Error(`no rows were given for ${list.table}`);
    // unnest flattens an array of arrays: array columns travel as their text, cast back.
    const arrays = list.types.map(
      (type, index) => `$${first + index}::${isArrayType(type) ? "text" : type}[]`,
    );
    const rows = `unnest(${arrays.join(", ")}) AS ${alias}(${list.names.join(", ")})`;
    if (!list.types.some(isArrayType)) return rows;
    const columns = list.names.map((name, index) => {
      const type = list.types[index] as string;
      return isArrayType(type) ? `${name}::${type} AS ${name}` : name;
    });
    return `(SELECT ${columns.join(", ")} FROM ${rows}) AS ${alias}`;
  };
  const result = await target.runner.query<{ inserted: number }>(statement(unnest), params);
  return result.rows[0]?.inserted ?? 0;
}

/**
 * COPY of every part into its table on the embedded store, in one transaction: PGlite's
 * `transaction` holds the session, so no other query runs between the COPYs.
 */
async function copyFromBlobs(client: PGlite, parts: readonly BulkPart[]): Promise<void> {
  const encoded = parts
    .map((part) => ({ list: part.list, blob: new Blob(copyText(part.list, part.rows)) }))
    .filter((part) => part.blob.size > 0);
  await client.transaction(async (tx) => {
    for (const { list, blob } of encoded) {
      await tx.query(`COPY ${list.table} (${list.names.join(", ")}) FROM '/dev/blob'`, [], {
        blob,
      });
    }
  });
}

/** One array per column, in list order; JSON and array columns as their text. */
function columnArrays(part: BulkPart): unknown[][] {
  return part.list.keys.map((key, index) => {
    const type = part.list.types[index] as string;
    const asText = type === "jsonb" ? JSON.stringify : isArrayType(type) ? arrayLiteral : undefined;
    const derive = derivationOf(part.list, key);
    return part.rows.map((row) => {
      const value =
        (derive === undefined ? (row as Record<string, unknown>)[key] : derive(row)) ?? null;
      return asText !== undefined && value !== null ? asText(value as never) : value;
    });
  });
}

const stagesOfClient = new WeakMap<pg.PoolClient, Set<string>>();

interface EncodedPart {
  list: ColumnList;
  /** COPY text, a few thousand rows per string. */
  chunks: string[];
}

/**
 * Runs `work` in a transaction on one pooled connection, after `prepare` (outside it);
 * rolls back if `work` throws.
 */
async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  prepare?: (client: pg.PoolClient) => Promise<void>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await prepare?.(client);
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is unusable: the pool must drop it
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}

/** A single COPY on a pooled connection, outside any transaction. */
async function copyAlone(pool: pg.Pool, part: EncodedPart): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await copyInto(client, part.list.table, part);
  } catch (error) {
    // An error the server answered (a SQLSTATE) leaves the connection ready for the next
    // statement; any other may have left it inside the COPY, so the pool must drop it.
    if (typeof (error as { code?: unknown }).code !== "string") broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}

/** COPY into the tables themselves: fails with a unique violation when a key is stored. */
async function copyStraight(client: pg.PoolClient, parts: readonly EncodedPart[]): Promise<void> {
  for (const part of parts) await copyInto(client, part.list.table, part);
}

const UNIQUE_VIOLATION = "23505";

async function copyAndMerge(
  client: pg.PoolClient,
  parts: readonly EncodedPart[],
  statement: BulkInsertStatement,
): Promise<number> {
  for (const part of parts) await copyInto(client, stageOf(part.list.table), part);
  const staged: RowSource = (list, alias) =>
    `(SELECT ${list.names.join(", ")} FROM ${stageOf(list.table)}) AS ${alias}`;
  const result = await client.query<{ inserted: number }>(statement(staged));
  return result.rows[0]?.inserted ?? 0;
}

async function copyInto(client: pg.PoolClient, table: string, part: EncodedPart): Promise<void> {
  if (part.chunks.length === 0) return;
  const copy = client.query(copyFrom(`COPY ${table} (${part.list.names.join(", ")}) FROM STDIN`));
  await pipeline(Readable.from(part.chunks), copy);
}

/**
 * Staging tables live as long as their connection and empty at every commit. Created
 * outside the write's transaction, so a rolled-back write never takes one away.
 */
async function createStages(client: pg.PoolClient, parts: readonly EncodedPart[]): Promise<void> {
  let made = stagesOfClient.get(client);
  if (made === undefined) {
    made = new Set();
    stagesOfClient.set(client, made);
  }
  for (const { list } of parts) {
    if (made.has(list.table)) continue;
    await client.query(
      `CREATE TEMP TABLE IF NOT EXISTS ${stageOf(list.table)} (LIKE ${list.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`,
    );
    made.add(list.table);
  }
}

function stageOf(table: string): string {
  return `pg_temp.assay_stage_${table}`;
}
