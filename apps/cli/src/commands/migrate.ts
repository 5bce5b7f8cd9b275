import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { MigrateFlags } from "../actions/migrate.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";

export function registerMigrate(program: CommandUnknownOpts): void {
  program
    .command("migrate")
    .description("apply the database migrations (the embedded store applies them by itself)")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (flags) => {
      const { migrateAction } = await import("../actions/migrate.js");
      await migrateAction(declaredFlags<MigrateFlags>()(flags));
    });
}
