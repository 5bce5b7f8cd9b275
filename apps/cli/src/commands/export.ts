import { type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import type { ExportFlags } from "../actions/export.js";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { declaredFlags } from "../declared-flags.js";
import { EXPORT_TABLE_NAMES } from "../export-table-names.js";
import { parseRunId } from "../run-id.js";

export function registerExport(program: CommandUnknownOpts): void {
  program
    .command("export")
    .description(
      "write one row per score of a run (or per row of another of its tables), streamed from the store",
    )
    .argument("<run-id>", "the run to export", parseRunId)
    .addOption(
      new Option(
        "--format <format>",
        "output format: JSON Lines (one object per line; json is the same) or CSV",
      )
        .choices(["jsonl", "json", "csv"])
        .default("jsonl"),
    )
    .option("--json", "same as --format jsonl")
    .addOption(
      new Option(
        "--table <table>",
        "which rows: scores, or the run's samples (labels, candidates), truncations, usage (tokens), selections (picks) or input_errors",
      )
        .choices(EXPORT_TABLE_NAMES)
        .default("scores"),
    )
    .option("--out <file>", "write to a file instead of stdout")
    .option("--db <target>", DB_OPTION_HELP)
    .option(...DB_SCHEMA_OPTION)
    .action(async (runId, flags) => {
      const { exportAction } = await import("../actions/export.js");
      await exportAction(runId, declaredFlags<ExportFlags>()(flags));
    });
}
