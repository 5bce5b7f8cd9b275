import { parse as parseYaml } from "yaml";
import { SpecError } from "../errors/spec-error.js";
import { firstIssue } from "../zod-issues.js";
import { type PriceTable, PriceTableSchema } from "./price-table.js";

/** A price table file's text (YAML, or JSON for a `.json` file), checked; errors name the field. */
export function parsePriceTable(text: string, file: string): PriceTable {
  let raw: unknown;
  try {
    raw = file.toLowerCase().endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SpecError(
      file,
      "file",
      `not a valid price table document: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const result = PriceTableSchema.safeParse(raw);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  throw new SpecError(
    file,
    field,
    `${message} (expected models: { <model>: { input_per_million, output_per_million } or { gpu_hour } })`,
  );
}
