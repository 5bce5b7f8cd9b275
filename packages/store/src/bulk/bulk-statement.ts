import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { QueryResult, SqlRunner } from "../sql-runner.js";
import type { ColumnList, RowOf } from "./column-list.js";
import { copyText } from "./copy-text.js";

/** Rows for one table of a bulk statement; build one with `bulkPart`. */
export interface BulkPart {
  list: ColumnList;
  rows: readonly object[];
}

/** Rows that carry every column of the list under its key. */
export function bulkPart<K extends string>(
  list: ColumnList<K>,
  rows: readonly RowOf<K>[],
): BulkPart {
  return { list, rows };
}

/**
 * A FROM item that yields a part's rows with the list's column names, under `alias`.
 * A statement is written once against it and runs on either loading path.
 */
export type RowSource = (list: ColumnList, alias: string) => string;

/** Where bulk statements run: the shared runner, plus the pool when the store is a server. */
export interface BulkTarget {
  runner: SqlRunner;
  /** Set for Postgres: large batches then travel by COPY. */
  pool: pg.Pool | undefined;
}

/**
 * From this many rows on, a Postgres batch is sent by COPY into per-connection staging
 * tables and merged by the statement; below it, COPY's extra round trips cost more than
 * array parameters save.
 */
export const COPY_MIN_ROWS = 100;

/**
 * Runs one statement over many rows as ONE atomic, all-or-nothing write:
 * - Postgres, large batches: COPY each part into a temporary staging table, then the
 *   statement reads the staging tables, all inside one transaction;
 * - otherwise (PGlite, small batches): one array parameter per column, unnested into rows.
 * Either way a data error fails the whole call and stores nothing, which is what
 * `writeIsolating` needs to find the bad row by splitting the batch.
 */
export async function bulkStatement<R>(
  target: BulkTarget,
  parts: readonly BulkPart[],
  statement: (from: RowSource) => string,
): Promise<QueryResult<R>> {
  const rows = parts.reduce((total, part) => total + part.rows.length, 0);
  if (target.pool !== undefined && rows >= COPY_MIN_ROWS) {
    return copyAndMerge<R>(target.pool, parts, statement);
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
    const arrays = list.types.map((type, index) => `$${first + index}::${type}[]`);
    return `unnest(${arrays.join(", ")}) AS ${alias}(${list.names.join(", ")})`;
  };
  return target.runner.query<R>(statement(unnest), params);
}

/** One array per column, in list order; JSON columns as JSON text. */
function columnArrays(part: BulkPart): unknown[][] {
  return part.list.keys.map((key, index) => {
    const json = part.list.types[index] === "jsonb";
    return part.rows.map((row) => {
      const value = (row as Record<string, unknown>)[key] ?? null;
      return json && value !== null ? JSON.stringify(value) : value;
    });
  });
}

const stagesOfClient = new WeakMap<pg.PoolClient, Set<string>>();

async function copyAndMerge<R>(
  pool: pg.Pool,
  parts: readonly BulkPart[],
  statement: (from: RowSource) => string,
): Promise<QueryResult<R>> {
  const encoded = parts.map((part) => ({
    list: part.list,
    chunks: copyText(part.list, part.rows),
  }));
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await createStages(client, parts);
    await client.query("BEGIN");
    try {
      for (const { list, chunks } of encoded) {
        if (chunks.length === 0) continue;
        const copy = client.query(
          copyFrom(`COPY ${stageOf(list.table)} (${list.names.join(", ")}) FROM STDIN`),
        );
        await pipeline(Readable.from(chunks), copy);
      }
      const staged: RowSource = (list, alias) =>
        `(SELECT ${list.names.join(", ")} FROM ${stageOf(list.table)}) AS ${alias}`;
      const result = await client.query(statement(staged));
      await client.query("COMMIT");
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
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

/**
 * Staging tables live as long as their connection and empty at every commit. Created
 * outside the write's transaction, so a rolled-back write never takes one away.
 */
async function createStages(client: pg.PoolClient, parts: readonly BulkPart[]): Promise<void> {
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
