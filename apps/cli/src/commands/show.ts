import { renderSampleView } from "@assay/report";
import { type Command, Option } from "commander";
import { writeOut } from "../output.js";
import { parseRunId } from "../run-id.js";
import { sampleView } from "../show/sample-view.js";
import { DB_OPTION_HELP, openStoreFor } from "../store-option.js";

interface ShowFlags {
  format: "table" | "json";
  json?: boolean;
  dataset?: string;
  db?: string;
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
    .action(async (runId: string, sampleId: string, flags: ShowFlags) => {
      const store = await openStoreFor(flags.db, { create: false });
      try {
        const view = await sampleView(store, runId, sampleId, flags.dataset);
        const json = flags.json === true || flags.format === "json";
        writeOut(`${json ? JSON.stringify(view, null, 2) : renderSampleView(view)}\n`);
      } finally {
        await store.close();
      }
    });
}
