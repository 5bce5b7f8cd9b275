import { readFile } from "node:fs/promises";
import { parsePriceTable, priceTableWithIdentities } from "@assay/core";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeErr } from "../output.js";
import { openStoreFor } from "../store-option.js";

export interface PricesImportFlags {
  effective?: Date;
  source?: string;
  db?: string;
  dbSchema?: string;
}

export async function pricesImportAction(file: string, flags: PricesImportFlags): Promise<void> {
  const text = await readFile(file, "utf8").catch(() => {
    throw new CliExit(ExitCode.refused, `Cannot read the price table ${file}: check the path.`);
  });
  // Checked before the store opens: a bad file changes nothing.
  const written = parsePriceTable(text, file);
  // A model folder is stored under its identity too: what usage rows name it by.
  const table = priceTableWithIdentities(written, file);
  const store = await openStoreFor(flags.db, "assay prices import", { schema: flags.dbSchema });
  try {
    const effectiveFrom = flags.effective ?? new Date();
    const { version } = await store.importPrices(table, {
      effectiveFrom,
      source: flags.source ?? file,
    });
    writeErr(
      `Price version ${version}: ${Object.keys(written.models).length} model(s) in ${table.currency}, in force from ${effectiveFrom.toISOString()}.\n`,
    );
  } finally {
    await store.close();
  }
}
