import type { ExportedTable } from "@assay/store";
import { type Command, Option } from "commander";
import { DB_OPTION_HELP, DB_SCHEMA_OPTION } from "../db-option.js";
import { parseRunId } from "../run-id.js";

/** `scores` (the default, with each score's task) or one of the run's other raw tables. */
export const EXPORT_TABLE_NAMES = [
  "scores",
  "samples",
  "truncations",
  "usage",
  "selections",
  "input_errors",
] as const satisfies readonly ("scores" | ExportedTable)[];

export type ExportTableName = (typeof EXPORT_TABLE_NAMES)[number];

/** `json` is accepted for `jsonl`, as `report --format json` and `show --format json` are. */
export type ExportFormat = "jsonl" | "json" | "csv";

export interface ExportFlags {
  format: ExportFormat;
  json?: boolean;
  table: ExportTableName;
  out?: string;
  db?: string;
  dbSchema?: string;
}

export function registerExport(program: Command): void {
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
    .action(async (runId: string, flags: ExportFlags) => {
      const { exportAction } = await import("../actions/export.js");
      await exportAction(runId, flags);
    });
}
