import type { ExportRow } from "@assay/core";
import { type ExportedTable, exportedColumns } from "@assay/store";
import { type Stringifier, stringify } from "csv-stringify";

export const EXPORT_COLUMNS: Array<keyof ExportRow> = [
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
  "detail",
];

/** Every other column may hold text from the dataset or the spec. */
const NUMERIC_COLUMNS: ReadonlySet<string> = new Set<keyof ExportRow>(["repetition", "value"]);

/** Score rows in, CSV text out, with the header and every text cell made formula-safe. */
export function scoreCsvEncoder(): Stringifier {
  return csvEncoder(EXPORT_COLUMNS, NUMERIC_COLUMNS);
}

/** Rows of another exported table in, CSV text out: the schema's columns, in its order. */
export function tableCsvEncoder(table: ExportedTable): Stringifier {
  const columns = exportedColumns(table);
  return csvEncoder(
    columns.map((column) => column.name),
    new Set(columns.filter((column) => column.numeric).map((column) => column.name)),
  );
}

/**
 * JSON values (metadata, detail) are written as JSON text and booleans as true/false, so
 * a cell reads back as what the store holds; an empty cell is SQL null.
 */
function csvEncoder(columns: readonly string[], numeric: ReadonlySet<string>): Stringifier {
  return stringify({
    header: true,
    columns: [...columns],
    cast: {
      boolean: (value) => String(value),
      object: (value) => neutraliseCell(JSON.stringify(value)),
      string: (value, context) =>
        numeric.has(String(context.column)) ? value : neutraliseCell(value),
    },
  });
}

/**
 * A text cell a spreadsheet will not run as a formula. Cells starting with `=`, `+`, `-`,
 * `@`, a tab or a carriage return get a leading `'`, as OWASP recommends against CSV
 * injection (a sample id `=HYPERLINK("http://evil/","x")`). Numeric columns keep their
 * numbers: a score of -0.5 stays -0.5.
 */
export function neutraliseCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
