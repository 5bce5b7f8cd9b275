import { SpecError } from "../errors/spec-error.js";
import { parseJsonConfig } from "../validation/config-document.js";
import { parseYamlConfig } from "../validation/yaml-config.js";
import { firstIssue, formatPath } from "../zod-issues.js";
import { type PriceTable, PriceTableSchema } from "./price-table.js";

/**
 * A price table file's text (YAML, or JSON for a `.json` file), checked as a spec is (a
 * model written twice would silently take the last price); errors name the field.
 */
export function parsePriceTable(text: string, file: string): PriceTable {
  const document = file.toLowerCase().endsWith(".json")
    ? parseJsonConfig(text)
    : parseYamlConfig(text);
  if (!document.ok) {
    const field = formatPath(document.path);
    throw new SpecError(file, field === "" ? "file" : field, document.message);
  }
  const result = PriceTableSchema.safeParse(document.value);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error, undefined, "");
  throw new SpecError(
    file,
    field,
    `${message} (expected models: { <model>: { input_per_million, output_per_million } or { gpu_hour } })`,
  );
}
