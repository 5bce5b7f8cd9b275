import type pg from "pg";
import type { StoreDriver } from "./store-driver.js";

/** A lock held by a connection of its own until released. */
export interface SessionLock {
  /** Frees the lock and the connection. Never throws. */
  release(): Promise<void>;
}

/**
 * Takes the session advisory lock `key` (an SQL expression over `params`) on a connection
 * held until `release`, or gives null at once when another session holds it. A process that
 * dies, or a server that restarts, drops the session and the lock with it, so nothing is
 * ever refused because of a process that is gone. The embedded store needs none: one
 * process at a time holds its folder (the store lock), so it is always granted.
 */
export async function trySessionLock(
  driver: StoreDriver,
  key: string,
  params: unknown[],
): Promise<SessionLock | null> {
  if (driver.kind !== "postgres") return { release: async () => {} };
  const client = await driver.pool.connect();
  let locked: boolean;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${key}) AS locked`,
      params,
    );
    locked = rows[0]?.locked === true;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  if (!locked) {
    client.release();
    return null;
  }
  return { release: () => unlock(client, key, params) };
}

/**
 * Takes the session advisory lock `key` as `trySessionLock` does, but waits for it while
 * another session holds it. A holder that dies frees it, so the wait ends with the holder.
 */
export async function waitForSessionLock(
  driver: StoreDriver,
  key: string,
  params: unknown[],
): Promise<SessionLock> {
  if (driver.kind !== "postgres") return { release: async () => {} };
  const client = await driver.pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${key})`, params);
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  return { release: () => unlock(client, key, params) };
}

async function unlock(client: pg.PoolClient, key: string, params: unknown[]): Promise<void> {
  try {
    await client.query(`SELECT pg_advisory_unlock(${key})`, params);
    client.release();
  } catch (error) {
    // The connection is broken (the server went away): dropping it ends the session, which
    // frees the lock too. The error the command reports is the one that broke the work.
    client.release(error as Error);
  }
}
