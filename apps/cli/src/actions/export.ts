import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { escapeTerminal } from "@assay/core";
import type { ExportTableName } from "../export-table-names.js";
import { checkOutPath, writeThroughOutFile } from "../out-file.js";
import { toStdout } from "../output.js";
import { requireRun } from "../require-run.js";
import { openStoreHoldingRun } from "../run-schema.js";
import { scoreCsvEncoder, tableCsvEncoder } from "../score-csv.js";
import { openStoreFor, storeTarget } from "../store-option.js";

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

export async function exportAction(runId: string, flags: ExportFlags): Promise<void> {
  if (flags.out !== undefined) await checkOutPath(flags.out);
  const store = await openStoreHoldingRun(
    runId,
    storeTarget(flags.db).databaseUrl,
    flags.dbSchema,
    () => openStoreFor(flags.db, "assay export", { create: false, schema: flags.dbSchema }),
  );
  try {
    await requireRun(store, runId);
    const table = flags.table ?? "scores";
    const jsonLines = flags.json === true || flags.format !== "csv";
    const encoder = jsonLines
      ? toJsonLines
      : table === "scores"
        ? scoreCsvEncoder()
        : tableCsvEncoder(table);
    const rows = Readable.from(
      table === "scores" ? store.exportScores(runId) : store.exportRows(runId, table),
    );
    if (flags.out !== undefined) {
      await writeThroughOutFile(flags.out, (stream) => pipeline(rows, encoder, stream));
    } else if (jsonLines || process.stdout.isTTY) {
      // On a terminal, or as JSON (where the escape keeps the value), control characters
      // from the dataset are escaped; CSV piped elsewhere is data and stays as it is.
      await toStdout(() => pipeline(rows, encoder, terminalSafe(), process.stdout));
    } else {
      await toStdout(() => pipeline(rows, encoder, process.stdout));
    }
  } finally {
    await store.close();
  }
}

async function* toJsonLines(rows: AsyncIterable<object>): AsyncGenerator<string> {
  for await (const row of rows) yield `${JSON.stringify(row)}\n`;
}

function terminalSafe(): Transform {
  const decoder = new StringDecoder("utf8");
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      done(null, escapeTerminal(text, { keepNewlines: true }));
    },
    flush(done) {
      done(null, escapeTerminal(decoder.end(), { keepNewlines: true }));
    },
  });
}
