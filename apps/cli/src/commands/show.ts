import { type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import type { ShowFlags } from "../actions/show.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { parseRunId } from "../run-id.js";

export function registerShow(program: CommandUnknownOpts): void {
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
    .action(async (runId, sampleId, flags) => {
      const { showAction } = await import("../actions/show.js");
      await showAction(runId, sampleId, declaredFlags<ShowFlags>()(flags));
    });
}
