import { TextParts } from "@assay/core";
import { type ColumnList, derivationOf } from "./column-list.js";

/**
 * Rows in COPY's text format, a few hundred rows per string. Encoded before the COPY
 * starts, so a value JavaScript cannot serialize fails the batch before any byte is sent.
 */
export function copyText(list: ColumnList, rows: readonly object[]): string[] {
  const encodeRow = rowEncoderOf(list);
  // Each row is built on its own and a chunk joined once from its rows: appending every
  // value to the chunk kept the whole chunk's rope alive until it was written. Chunks stay
  // small (`TextParts`).
  const chunks = new TextParts(chunkOf);
  for (const row of rows) chunks.push(encodeRow(row));
  return chunks.end();
}

/** Rows' lines as one string, each ended by a newline. */
function chunkOf(lines: string[]): string {
  lines.push("");
  return lines.join("\n");
}

type Encoder = (value: unknown) => string;
type RowEncoder = (row: object) => string;

const rowEncoders = new WeakMap<ColumnList, RowEncoder>();

/**
 * One row's line: its values in list order, tab-separated, NULL as `\N`. Compiled once per
 * column list into a function that reads each column by its own name: a loop over the keys
 * reads `row[key]` at one site for every column, which V8 can only serve from its slowest
 * (megamorphic) cache; the compiled function took ~25% less time per row for score and
 * sample rows (with `escapeJson`; bench:local's shapes, 100,000 of each, median of 9). Joining
 * a row's values from an array instead of adding them up made less garbage but cost as much
 * CPU in `assay run` (3 alternating runs). The keys come from the schema (`columnList`), and
 * each is written as a JSON string literal.
 */
function rowEncoderOf(list: ColumnList): RowEncoder {
  let encodeRow = rowEncoders.get(list);
  if (encodeRow === undefined) {
    const encoders = list.types.map(encoderOf);
    const reads = list.keys.map((key, column) => {
      const name = JSON.stringify(key);
      const read = derivationOf(list, key) === undefined ? `row[${name}]` : `derived[${name}](row)`;
      return `const v${column} = ${read};`;
    });
    const texts = list.keys.map(
      (_, column) => `(v${column} == null ? "\\\\N" : encoders[${column}](v${column}))`,
    );
    const body = `${reads.join("\n")}\nreturn ${texts.join(' + "\\t" + ')};`;
    const compile = new Function("encoders", "derived", `return (row) => {\n${body}\n};`);
    encodeRow = compile(encoders, list.derived) as RowEncoder;
    rowEncoders.set(list, encodeRow);
  }
  return encodeRow;
}

function encoderOf(sqlType: string): Encoder {
  if (isArrayType(sqlType)) return (value) => escapeText(arrayLiteral(value as unknown[]));
  switch (sqlType) {
    case "jsonb":
    case "json":
      return (value) => escapeJson(JSON.stringify(value));
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

/**
 * `escapeText` for JSON.stringify's output, which writes every control character as an
 * escape, so a backslash is the only character COPY would read as special: one `includes`
 * instead of a regex over the text (~0.3 µs a score and sample row together).
 */
function escapeJson(json: string): string {
  return json.includes("\\") ? json.replaceAll("\\", "\\\\") : json;
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
