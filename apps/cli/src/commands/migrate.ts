import type { Command } from "commander";
import { writeErr } from "../output.js";
import { DB_OPTION_HELP, describeStore, openStoreFor, storeTarget } from "../store-option.js";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply the database migrations (the embedded store applies them by itself)")
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (flags: { db?: string }) => {
      const store = await openStoreFor(flags.db, { migrate: false });
      try {
        await store.migrate();
        writeErr(`Migrations applied (${describeStore(storeTarget(flags.db))}).\n`);
      } finally {
        await store.close();
      }
    });
}
