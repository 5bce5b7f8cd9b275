import type { ExportRow } from "@assay/core";
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
];

/** Every other column may hold text from the dataset or the spec. */
const NUMERIC_COLUMNS: ReadonlySet<string> = new Set<keyof ExportRow>(["repetition", "value"]);

/** Score rows in, CSV text out, with the header and every text cell made formula-safe. */
export function scoreCsvEncoder(): Stringifier {
  return stringify({
    header: true,
    columns: EXPORT_COLUMNS,
    cast: {
      string: (value, context) =>
        NUMERIC_COLUMNS.has(String(context.column)) ? value : neutraliseCell(value),
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
