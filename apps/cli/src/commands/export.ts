import { type Command, Option } from "commander";
import { DB_OPTION_HELP } from "../db-option.js";
import { parseRunId } from "../run-id.js";

export interface ExportFlags {
  format: "jsonl" | "csv";
  out?: string;
  db?: string;
}

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("write one row per score of a run, streamed from the store")
    .argument("<run-id>", "the run to export", parseRunId)
    .addOption(
      new Option("--format <format>", "output format").choices(["jsonl", "csv"]).default("jsonl"),
    )
    .option("--out <file>", "write to a file instead of stdout")
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (runId: string, flags: ExportFlags) => {
      const { exportAction } = await import("../actions/export.js");
      await exportAction(runId, flags);
    });
}
