import { type SessionLock, trySessionLock, waitForSessionLock } from "../session-lock.js";
import type { StoreDriver } from "../store-driver.js";

// One key per schema and run, as the answer join's: the same run id in two schemas is two
// runs, and advisory locks are per database.
const KEY = "hashtextextended('assay.run-completion:' || current_schema() || ':' || $1, 0)";

/**
 * Whoever completes a run holds this while it does (`completeRun` in the pipeline): the
 * local run, a waiting producer or retry, `assay status` and the worker that stored the
 * last result may all find the run complete at the same moment, and one of them must do
 * the work. `wait: false` gives null at once while another holds it; `wait: true` waits
 * for it.
 *
 * On Postgres a session advisory lock on a connection of its own, freed by the server if
 * the holder dies. The embedded store is held by one process (the store lock), so a lock
 * in this process is enough there.
 */
export async function lockRunCompletion(
  driver: StoreDriver,
  runId: string,
  options: { wait: boolean },
): Promise<SessionLock | null> {
  if (driver.kind === "postgres") {
    return options.wait
      ? waitForSessionLock(driver, KEY, [runId])
      : trySessionLock(driver, KEY, [runId]);
  }
  return lockInProcess(driver, runId, options.wait);
}

/** Runs being completed in this process, per embedded store: each with its release. */
const held = new WeakMap<StoreDriver, Map<string, Promise<void>>>();

async function lockInProcess(
  driver: StoreDriver,
  runId: string,
  wait: boolean,
): Promise<SessionLock | null> {
  let runs = held.get(driver);
  if (runs === undefined) {
    runs = new Map();
    held.set(driver, runs);
  }
  for (let holder = runs.get(runId); holder !== undefined; holder = runs.get(runId)) {
    if (!wait) return null;
    await holder;
  }
  let release = (): void => {};
  runs.set(
    runId,
    new Promise<void>((resolve) => {
      release = resolve;
    }),
  );
  const taken = runs;
  return {
    release: async () => {
      taken.delete(runId);
      release();
    },
  };
}
