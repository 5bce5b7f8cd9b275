import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { TransactionRunner } from "../transaction.js";
import { CopyTextRows, type FieldDecoder } from "./copy-text-rows.js";

/** A pass's rows, a batch at a time, in the order the query gives them. */
export type RowBatches = AsyncGenerator<unknown[][], void, undefined>;

/**
 * Through a cursor declared in the pass's transaction, `rows` at a time (PGlite: one
 * in-process connection, where a fetch costs no round trip). `declare` declares
 * `run_candidates`.
 */
export async function* cursorBatches(
  tx: TransactionRunner,
  declare: string,
  params: readonly unknown[],
  rows: number,
): RowBatches {
  await tx.query(declare, [...params]);
  for (;;) {
    const batch = await tx.queryArrays(`FETCH ${rows} FROM run_candidates`);
    if (batch.length > 0) yield batch;
    if (batch.length < rows) return;
  }
}

/**
 * Through `COPY (query) TO STDOUT` on a connection of its own (Postgres): the server sends
 * rows as fast as they are taken, with no round trip per batch, while the pass's own
 * connection loads what selection makes of them. Each batch is what one chunk of output
 * completes, at most `rows`. The connection is closed when the batches end or are left.
 */
export async function* copyBatches(
  connection: pg.ClientConfig,
  query: string,
  decoders: readonly FieldDecoder[],
  rows: number,
): RowBatches {
  const client = await connectAlone(connection);
  let complete = false;
  try {
    // Compiling the plan (JIT) costs more than it saves on these queries (~0.3 s at 1M rows).
    await client.query("SET jit = off");
    const parser = new CopyTextRows(decoders);
    for await (const chunk of client.query(copyTo(`COPY (${query}) TO STDOUT`))) {
      const parsed = parser.push(chunk as Buffer);
      for (let at = 0; at < parsed.length; at += rows) {
        yield at === 0 && parsed.length <= rows ? parsed : parsed.slice(at, at + rows);
      }
    }
    parser.end();
    complete = true;
  } finally {
    // Left early, the COPY is still sending: closing the connection ends it on the server.
    if (complete) await client.end();
    else client.connection.stream.destroy();
  }
}

/**
 * A connection apart from the pool's, for the length of a pass. Its errors reach whatever
 * it is running; one the server drops must not crash the process.
 */
export async function connectAlone(connection: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(connection);
  client.on("error", () => {});
  await client.connect();
  return client;
}
