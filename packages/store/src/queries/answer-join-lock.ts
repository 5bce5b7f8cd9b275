import { ConfigError } from "@assay/core";
import { trySessionLock } from "../session-lock.js";
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
 * On Postgres this is a session advisory lock on a connection held for the whole join
 * (session-lock.ts); the embedded store needs none.
 */
export async function lockAnswerJoin(driver: StoreDriver, runId: string): Promise<AnswerJoinLock> {
  const lock = await trySessionLock(driver, KEY, [runId]);
  if (lock === null) {
    throw new RunInUseError(
      `Cannot join answers for run ${runId}: another process is joining its answers on this ` +
        `store now, and two joins of one run would count each other's answers wrong. Wait for ` +
        `it to end (assay status ${runId}), then rerun with --run-id ${runId} if it did not finish.`,
    );
  }
  return lock;
}
