import type { Store } from "@assay/store";
import { CliExit, ExitCode } from "./exit-codes.js";

/** Fails with a clear message when the store has no such run. */
export async function requireRun(store: Store, runId: string): Promise<void> {
  if ((await store.getRun(runId)) !== undefined) return;
  throw new CliExit(
    ExitCode.refused,
    `No run "${runId}" in this store. Check the id, or pass the store that holds it with --db.`,
  );
}
