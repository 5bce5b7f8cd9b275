import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ExportRow } from "@assay/core";
import { type Command, Option } from "commander";
import { stringify } from "csv-stringify";
import { requireRun } from "../require-run.js";
import { DB_OPTION_HELP, openStoreFor } from "../store-option.js";

const COLUMNS: Array<keyof ExportRow> = [
  "run_id",
  "sample_id",
  "task_id",
  "scorer",
  "criterion",
  "repetition",
  "status",
  "value",
  "reason",
  "rule",
];

interface ExportFlags {
  format: "jsonl" | "csv";
  out?: string;
  db?: string;
}

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("write one row per score of a run, streamed from the store")
    .argument("<run-id>", "the run to export")
    .addOption(
      new Option("--format <format>", "output format").choices(["jsonl", "csv"]).default("jsonl"),
    )
    .option("--out <file>", "write to a file instead of stdout")
    .option("--db <target>", DB_OPTION_HELP)
    .action(async (runId: string, flags: ExportFlags) => {
      const store = await openStoreFor(flags.db);
      try {
        await requireRun(store, runId);
        const encoder =
          flags.format === "csv" ? stringify({ header: true, columns: COLUMNS }) : toJsonLines;
        const out = flags.out === undefined ? process.stdout : createWriteStream(flags.out);
        await pipeline(Readable.from(store.exportScores(runId)), encoder, out);
      } finally {
        await store.close();
      }
    });
}

async function* toJsonLines(rows: AsyncIterable<ExportRow>): AsyncGenerator<string> {
  for await (const row of rows) yield `${JSON.stringify(row)}\n`;
}
