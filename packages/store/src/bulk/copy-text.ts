import { TextParts } from "@assay/core";
import type { ColumnList } from "./column-list.js";

/**
 * Rows in COPY's text format, a few hundred rows per string. Encoded before the COPY
 * starts, so a value JavaScript cannot serialize fails the batch before any byte is sent.
 */
export function copyText(list: ColumnList, rows: readonly object[]): string[] {
  const encoders = list.types.map(encoderOf);
  const { keys } = list;
  // Each row is built on its own and a chunk joined once from its rows: appending every
  // value to the chunk kept the whole chunk's rope alive until it was written, and joining
  // each row's values from an array measured slower. Chunks stay small (`TextParts`).
  const chunks = new TextParts(chunkOf);
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index] as Record<string, unknown>;
    let line = "";
    for (let column = 0; column < keys.length; column += 1) {
      const value = row[keys[column] as string];
      if (column > 0) line += "\t";
      line += value === null || value === undefined ? "\\N" : (encoders[column] as Encoder)(value);
    }
    chunks.push(line);
  }
  return chunks.end();
}

/** Rows' lines as one string, each ended by a newline. */
function chunkOf(lines: string[]): string {
  lines.push("");
  return lines.join("\n");
}

type Encoder = (value: unknown) => string;

function encoderOf(sqlType: string): Encoder {
  if (isArrayType(sqlType)) return (value) => escapeText(arrayLiteral(value as unknown[]));
  switch (sqlType) {
    case "jsonb":
    case "json":
      return (value) => escapeText(JSON.stringify(value));
    case "boolean":
      return (value) => (value === true ? "t" : "f");
    case "integer":
    case "bigint":
    case "double precision":
      return (value) => String(value);
    default:
      return (value) => escapeText(String(value));
  }
}

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** Backslash-escapes what COPY's text format gives a meaning to. */
export function escapeText(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIALS, (char) => ESCAPES[char] ?? char) : value;
}

/** Whether a column holds a Postgres array (`bigint[]`, `text[]`). */
export function isArrayType(sqlType: string): boolean {
  return sqlType.endsWith("[]");
}

/**
 * A one-dimensional array as Postgres writes it (`{"1","2"}`): every element quoted, so no
 * text needs telling apart from a number, a comma or NULL.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((value) =>
    value === null || value === undefined ? "NULL" : `"${String(value).replace(/["\\]/g, "\\$&")}"`,
  );
  return `{${elements.join(",")}}`;
}
