import { once } from "node:events";
import { finished } from "node:stream/promises";
import type { Transaction } from "@electric-sql/pglite";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { QueryResult, SqlRunner } from "./sql-runner.js";
import type { StoreDriver } from "./store-driver.js";

/** One connection inside one transaction, with bulk loading. */
export interface TransactionRunner extends SqlRunner {
  /** Rows as arrays in column order: no object per row, for reads of millions of rows. */
  queryArrays(text: string, params?: unknown[]): Promise<unknown[][]>;
  /**
   * Opens `COPY <table> (<columns>)` for text made a piece at a time. On Postgres it stays
   * open on this connection until `end` or `abort`, and nothing else can run on it until
   * then; on PGlite each piece is loaded as it comes.
   */
  openCopy(copy: string): CopySink;
}

/** An open COPY: COPY text (`bulk/copy-text.ts`, whole rows) goes in as it is made. */
export interface CopySink {
  /** Resolves once the text can be taken (it waits while the server is behind). */
  write(text: string): Promise<void>;
  /** Ends the COPY: the rows it loaded. */
  end(): Promise<number>;
  /**
   * Stops the COPY: on Postgres the statement fails (and the transaction with it, up to a
   * savepoint taken before); on PGlite what was loaded stays until that savepoint is undone.
   */
  abort(): Promise<void>;
}

/**
 * Runs `work` in one transaction on one connection: committed when it resolves, rolled
 * back when it throws. On PGlite every other query waits until it ends.
 */
export async function inTransaction<T>(
  driver: StoreDriver,
  work: (tx: TransactionRunner) => Promise<T>,
): Promise<T> {
  if (driver.kind === "pglite") return driver.client.transaction((tx) => work(pgliteTx(tx)));
  const client = await driver.pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(pgTx(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

function pgTx(client: pg.PoolClient): TransactionRunner {
  return {
    async query<R>(text: string, params: unknown[] = []): Promise<QueryResult<R>> {
      const result = await client.query(text, params);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
    async queryArrays(text: string, params: unknown[] = []): Promise<unknown[][]> {
      const result = await client.query({ text, values: params, rowMode: "array" });
      return result.rows as unknown[][];
    },
    openCopy(copy: string): CopySink {
      const stream = client.query(copyFrom(`${copy} FROM STDIN`));
      const done = finished(stream);
      done.catch(() => {}); // awaited by end or abort; a failure first must not go unhandled
      return {
        async write(text) {
          if (!stream.write(text)) await Promise.race([once(stream, "drain"), done]);
        },
        async end() {
          stream.end();
          await done;
          return stream.rowCount;
        },
        async abort() {
          // Sends CopyFail and resolves once the server has answered it.
          stream.destroy(new Error("COPY stopped"));
          await done.catch(() => {});
        },
      };
    },
  };
}

function pgliteTx(tx: Transaction): TransactionRunner {
  return {
    async query<R>(text: string, params: unknown[] = []): Promise<QueryResult<R>> {
      const result = await tx.query<R>(text, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
    async queryArrays(text: string, params: unknown[] = []): Promise<unknown[][]> {
      const result = await tx.query<unknown[]>(text, params, { rowMode: "array" });
      return result.rows;
    },
    openCopy(copy: string): CopySink {
      let loaded = 0;
      return {
        async write(text) {
          const result = await tx.query(`${copy} FROM '/dev/blob'`, [], {
            blob: new Blob([text]),
          });
          loaded += result.affectedRows ?? 0;
        },
        end: async () => loaded,
        abort: async () => {},
      };
    },
  };
}
