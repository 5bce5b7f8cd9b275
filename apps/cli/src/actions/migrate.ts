import { writeErr } from "../output.js";
import { describeStore, openStoreFor, storeTarget } from "../store-option.js";

export async function migrateAction(flags: { db?: string }): Promise<void> {
  const store = await openStoreFor(flags.db, "assay migrate", { migrate: false });
  try {
    await store.migrate();
    writeErr(`Migrations applied (${describeStore(storeTarget(flags.db))}).\n`);
  } finally {
    await store.close();
  }
}
