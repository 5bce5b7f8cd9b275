import { gzipSync } from "node:zlib";
import { parquetWriteBuffer } from "hyparquet-writer";

/** A dataset row as a JSONL line holds it. */
export type Row = Record<string, unknown>;

/** The columns a rendering writes, in order; a row without a field leaves its cell empty. */
export const ROW_FIELDS = [
  "id",
  "task_id",
  "question",
  "answer",
  "candidates",
  "target",
  "label",
  "metadata",
] as const;

/**
 * A column of a rendering: its name, and the field whose cell rule writes it (a team's
 * `reference` column mapped to `target` is written as a target is).
 */
export type Column = readonly [name: string, field: string];

const OWN_COLUMNS: Column[] = ROW_FIELDS.map((field) => [field, field]);

export function toJsonl(rows: Row[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join("");
}

/**
 * The rows as CSV or TSV the way the documented cell rule reads them back: lists and
 * objects as JSON, booleans as true/false, a field left out as an unquoted empty cell and
 * the empty string as `""`, a string target that starts with `[`, `{` or `"` as a JSON string.
 * A null field is left out, as every format reads it.
 */
export function toCsv(
  rows: Row[],
  delimiter: "," | "\t" = ",",
  columns: readonly Column[] = OWN_COLUMNS,
): string {
  const records = [
    columns.map(([name]) => name),
    ...rows.map((row) => columns.map(([name, field]) => cellText(field, row[name]))),
  ];
  return records
    .map((cells) => `${cells.map((cell) => quoted(cell, delimiter)).join(delimiter)}\n`)
    .join("");
}

/**
 * RFC 4180 quoting, written out here rather than by a library so that the two kinds of
 * empty cell stay apart: a field left out is nothing, the empty string is `""`.
 */
function quoted(cell: string | undefined, delimiter: string): string {
  if (cell === undefined) return "";
  const needs = cell === "" || /["\r\n]/.test(cell) || cell.includes(delimiter);
  return needs ? `"${cell.replaceAll('"', '""')}"` : cell;
}

function cellText(field: string, value: unknown): string | undefined {
  // A null field is a field left out, in every format.
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    return field === "target" && /^\s*[[{"]/.test(value) ? JSON.stringify(value) : value;
  }
  if (typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * The rows as a Parquet file: `label` a BOOLEAN column, every other field a STRING column
 * holding what a CSV cell would (JSON for lists and objects), null where a row lacks it.
 */
export function toParquet(
  rows: Row[],
  options: {
    rowGroupSize?: number;
    codec?: "SNAPPY" | "GZIP" | "UNCOMPRESSED";
    columns?: readonly Column[];
  } = {},
): Uint8Array {
  const columnData = (options.columns ?? OWN_COLUMNS).map(([name, field]) =>
    field === "label"
      ? {
          name,
          type: "BOOLEAN" as const,
          data: rows.map((row) => row[name] ?? null),
        }
      : {
          name,
          type: "STRING" as const,
          data: rows.map((row) => cellText(field, row[name]) ?? null),
        },
  );
  const buffer = parquetWriteBuffer({
    columnData,
    codec: options.codec ?? "SNAPPY",
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)) },
    ...(options.rowGroupSize !== undefined && { rowGroupSize: options.rowGroupSize }),
  });
  return new Uint8Array(buffer);
}
