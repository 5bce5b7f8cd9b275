import { type LineParseOptions, printable, type RecordValidator } from "@assay/core";

/**
 * Fields whose value is a list or an object: in a CSV/TSV cell, or a Parquet string
 * column, they are written as JSON (`[{"answer":"4"}]`).
 */
const JSON_FIELDS = new Set(["candidates", "metadata", "scorers", "generator", "steps"]);

/** A field's value from a cell's text, or why the text cannot be that field. */
export type CellValue = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The one rule for text that stands for a field's value, in CSV, TSV and Parquet alike:
 * - `candidates`, `metadata`, `scorers`, `generator`, `steps`: the text is JSON;
 * - `label`: `true` or `false` is the boolean (anything else is refused as a label);
 * - `target`: text starting with `[`, `{` or `"` is JSON (a list or object target, or a
 *   string written as JSON: `"[draft]"` is the target `[draft]`); any other text is the
 *   string itself (so a number target is the string `"42"`);
 * - every other field (`id`, `question`, `answer`, ...): the text as it is.
 */
export function cellValue(field: string, text: string): CellValue {
  if (JSON_FIELDS.has(field)) return json(field, text, "a JSON list or object");
  if (field === "label") {
    if (text === "true") return { ok: true, value: true };
    if (text === "false") return { ok: true, value: false };
    return { ok: true, value: text };
  }
  if (field === "target" && /^\s*[[{"]/.test(text)) {
    return json(field, text, 'JSON, since it starts with [, { or "');
  }
  return { ok: true, value: text };
}

function json(field: string, text: string, what: string): CellValue {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const detail = printable(error instanceof Error ? error.message : String(error));
    return { ok: false, message: `the ${field} cell must hold ${what}; it is not (${detail})` };
  }
}

/**
 * `validate` for a record whose text values came from cells: each is first read by
 * `cellValue` for the field it stands for. Values that are not text (a Parquet number or
 * list, metadata gathered from several columns) are kept as they are.
 */
export function cellsThen(validate: RecordValidator): RecordValidator {
  return (record) => {
    const values: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(record)) {
      if (typeof value !== "string") {
        values[field] = value;
        continue;
      }
      const read = cellValue(field, value);
      if (!read.ok) return { ok: false, field, message: read.message };
      values[field] = read.value;
    }
    return validate(values);
  };
}

/** How a format's rows are read: the parse options and their cell-reading validator. */
export interface CellReading {
  options: LineParseOptions;
  validate: RecordValidator;
}
