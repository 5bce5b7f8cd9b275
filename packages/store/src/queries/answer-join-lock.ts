import { ConfigError } from "@assay/core";
import type pg from "pg";
import type { StoreDriver } from "../store-driver.js";

/** Another process is joining answers for the same run on the same store. */
export class RunInUseError extends ConfigError {
  override name = "RunInUseError";
}

/** Held from the start of a run's answer staging to the end of its join. */
export interface AnswerJoinLock {
  /** Lets another process join the run's answers. Never throws: see `lockAnswerJoin`. */
  release(): Promise<void>;
}

// One key per schema and run: tests and teams share a server with one schema each, and the
// same run id in two schemas is two runs. Advisory locks are per database, so the schema
// is part of the key.
const KEY = "hashtextextended('assay.answer-join:' || current_schema() || ':' || $1, 0)";

/**
 * Takes the run's answer-join lock, or refuses at once with a `RunInUseError`. Staging
 * starts by clearing what the run has staged, so a second process joining the same run
 * would clear the first one's answers under it and both would count them wrong.
 *
 * On Postgres this is a session advisory lock on a connection held for the whole join: a
 * process that dies, or a server that restarts, drops the session and the lock with it, so
 * a rerun is never refused because of an attempt that is gone. The embedded store needs
 * none: one process at a time holds its folder (the store lock).
 */
export async function lockAnswerJoin(driver: StoreDriver, runId: string): Promise<AnswerJoinLock> {
  if (driver.kind !== "postgres") return { release: async () => {} };
  const client = await driver.pool.connect();
  let locked: boolean;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${KEY}) AS locked`,
      [runId],
    );
    locked = rows[0]?.locked === true;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  if (!locked) {
    client.release();
    throw new RunInUseError(
      `Cannot join answers for run ${runId}: another process is joining its answers on this ` +
        `store now, and two joins of one run would count each other's answers wrong. Wait for ` +
        `it to end (assay status ${runId}), then rerun with --run-id ${runId} if it did not finish.`,
    );
  }
  return { release: () => unlock(client, runId) };
}

async function unlock(client: pg.PoolClient, runId: string): Promise<void> {
  try {
    await client.query(`SELECT pg_advisory_unlock(${KEY})`, [runId]);
    client.release();
  } catch (error) {
    // The connection is broken (the server went away): dropping it ends the session, which
    // frees the lock too. The error the command reports is the one that broke the join.
    client.release(error as Error);
  }
}
