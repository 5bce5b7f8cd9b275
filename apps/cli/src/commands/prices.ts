import { type CommandUnknownOpts, InvalidArgumentError } from "@commander-js/extra-typings";
import type { PricesImportFlags } from "../actions/prices.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";

export function registerPrices(program: CommandUnknownOpts): void {
  const prices = program
    .command("prices")
    .description("keep versioned price tables in the store, for the analyst cost views");
  prices
    .command("import")
    .description(
      "store a price table (the format of `report --prices`) as a new version; a run is priced by the version in force when it started",
    )
    .argument("<file>", "price table, YAML or JSON (.json)")
    .option(
      "--effective <date>",
      "when the prices come into force, an ISO 8601 date or time (default: now)",
      isoDate,
    )
    .option("--source <text>", "where the prices come from (default: the file's path)")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (file, flags) => {
      const { pricesImportAction } = await import("../actions/prices.js");
      await pricesImportAction(file, declaredFlags<PricesImportFlags>()(flags));
    });
}

function isoDate(value: string): Date {
  const date = new Date(value);
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(date.getTime())) return date;
  throw new InvalidArgumentError(
    `--effective must be an ISO 8601 date or time such as 2026-01-31 or 2026-01-31T12:00:00Z, got \`${value}\``,
  );
}
