import type { Command } from "commander";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply the database migrations (the embedded store applies them by itself)")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (flags: { db?: string; dbSchema?: string }) => {
      const { migrateAction } = await import("../actions/migrate.js");
      await migrateAction(flags);
    });
}
