import { NotFoundError } from "@assay/core/errors";
import type { Store } from "@assay/store";

/** Fails with a clear message when the store has no such run. */
export async function requireRun(store: Store, runId: string): Promise<void> {
  if ((await store.getRun(runId)) !== undefined) return;
  throw new NotFoundError(
    `No run "${runId}" in this store. Check the id, or pass the store that holds it with --db.`,
  );
}
