import type { Command } from "commander";
import { DB_OPTION_HELP } from "../db-option.js";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply the database migrations (the embedded store applies them by itself)")
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (flags: { db?: string }) => {
      const { migrateAction } = await import("../actions/migrate.js");
      await migrateAction(flags);
    });
}
