import { writeErr } from "../output.js";
import { describeStore, openStoreFor, storeTarget } from "../store-option.js";

export interface MigrateFlags {
  db?: string;
  dbSchema?: string;
}

export async function migrateAction(flags: MigrateFlags): Promise<void> {
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
