import { type Command, Option } from "commander";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { parseRunId } from "../run-id.js";

export interface ShowFlags {
  format: "table" | "json";
  json?: boolean;
  dataset?: string;
  db?: string;
  dbSchema?: string;
}

export function registerShow(program: Command): void {
  program
    .command("show")
    .description(
      "show one sample of a run: its question and answer (read back from the dataset) and every score",
    )
    .argument("<run-id>", "the run", parseRunId)
    .argument("<sample-id>", 'the sample (a candidate is "<line id>#<index>")')
    .addOption(
      new Option("--format <format>", "output format").choices(["table", "json"]).default("table"),
    )
    .option("--json", "same as --format json")
    .option("--dataset <file>", "read the text from this copy of the dataset instead of the run's")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (runId: string, sampleId: string, flags: ShowFlags) => {
      const { showAction } = await import("../actions/show.js");
      await showAction(runId, sampleId, flags);
    });
}
