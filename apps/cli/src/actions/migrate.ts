import { writeErr } from "../output.js";
import { describeStore, openStoreFor, storeTarget } from "../store-option.js";

export async function migrateAction(flags: { db?: string; dbSchema?: string }): Promise<void> {
  const store = await openStoreFor(flags.db, "assay migrate", {
    migrate: false,
    schema: flags.dbSchema,
  });
  try {
    await store.migrate();
    const schema = flags.dbSchema === undefined ? "" : `, schema ${flags.dbSchema}`;
    writeErr(`Migrations applied (${describeStore(storeTarget(flags.db))}${schema}).\n`);
  } finally {
    await store.close();
  }
}
