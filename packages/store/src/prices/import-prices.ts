import type { PriceTable } from "@assay/core";
import { inTransaction } from "../in-transaction.js";
import type { StoreDriver } from "../store-driver.js";

export interface PriceImport {
  /** From when the prices are in force; runs that started at or after it use them. */
  effectiveFrom: Date;
  /** Where they came from, e.g. the file imported. */
  source: string;
}

const INSERT_VERSION = `
  INSERT INTO price_versions (effective_from, currency, source) VALUES ($1, $2, $3)
  RETURNING version`;
// Every model of the table in one statement, as one JSON array parameter.
const INSERT_PRICES = `
  INSERT INTO prices (version, model, input_per_million, cached_input_per_million,
                      cache_write_per_million, cache_write_1h_per_million,
                      output_per_million, gpu_hour)
  SELECT $1, x.model, x.input_per_million, x.cached_input_per_million,
         x.cache_write_per_million, x.cache_write_1h_per_million, x.output_per_million, x.gpu_hour
  FROM jsonb_to_recordset($2::jsonb) AS x(model text, input_per_million float8,
       cached_input_per_million float8, cache_write_per_million float8,
       cache_write_1h_per_million float8, output_per_million float8, gpu_hour float8)`;

/**
 * Stores a price table as a new version (never changing an earlier one), in one
 * transaction: the analyst views price a run by the version in force when it started.
 */
export async function importPrices(
  driver: StoreDriver,
  table: PriceTable,
  options: PriceImport,
): Promise<{ version: number; models: number }> {
  const models = Object.entries(table.models).map(([model, price]) => ({ model, ...price }));
  return inTransaction(driver, async (runner) => {
    const { rows } = await runner.query<{ version: unknown }>(INSERT_VERSION, [
      options.effectiveFrom.toISOString(),
      table.currency,
      options.source,
    ]);
    const version = Number(rows[0]?.version);
    await runner.query(INSERT_PRICES, [version, JSON.stringify(models)]);
    return { version, models: models.length };
  });
}
