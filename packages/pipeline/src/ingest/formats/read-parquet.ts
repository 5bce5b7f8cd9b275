import type { FileHandle } from "node:fs/promises";
import { InputError, type LineParseOptions, printable, recordValidator } from "@assay/core";
import {
  type AsyncBuffer,
  type FileMetaData,
  parquetMetadataAsync,
  parquetReadObjects,
} from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { type LineOutcome, parseRecord } from "../parse-lines.js";
import { type CellReading, cellsThen } from "./cell-values.js";
import { fileChunks } from "./file-chunks.js";

/**
 * The rows of a Parquet file as line outcomes, one row group at a time: only the footer
 * and the row group being read are in memory. A row's number is its place in the file,
 * from 1. Values keep their Parquet types (int64 as a number, timestamps as ISO text,
 * lists and structs as lists and objects); a null leaves its field out; a string goes
 * through `cellValue`, as a CSV cell does. A row group that cannot be decoded is one
 * refusal at its first row; the row groups around it are read.
 *
 * `onRead` sees the file's bytes in order, from its start up to the end of each row group
 * before that group's rows come out, then the rest: the dataset hash covers every row
 * handed on, as it does for a line of text.
 */
export async function* parquetOutcomes(
  file: string,
  handle: FileHandle,
  bytes: number,
  onRead: ((bytes: Uint8Array) => void) | undefined,
  options: LineParseOptions = {},
  maxLineBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<LineOutcome[]> {
  // Built once per file, not per row: the validator is the same for every row.
  const reading: CellReading = { options, validate: cellsThen(recordValidator(options)) };
  const buffer = handleBuffer(handle, bytes);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    throw new InputError({
      file,
      line: 0,
      field: "",
      message: `not a readable Parquet file (${detail(error)}); is it complete? Nothing was read`,
    });
  }
  const hashing = fileChunks(handle, onRead)[Symbol.asyncIterator]();
  let hashed = 0;
  const hashUpTo = async (end: number): Promise<void> => {
    while (hashed < end) {
      const next = await hashing.next();
      if (next.done === true) return;
      hashed += next.value.length;
    }
  };
  let rowStart = 0;
  for (const [index, group] of metadata.row_groups.entries()) {
    const rows = Number(group.num_rows);
    const rowEnd = rowStart + rows;
    await hashUpTo(groupEnd(group));
    // Decoded whole, so bounded first: a group larger than its rows' line limits (a few
    // compressed bytes can claim gigabytes) cannot hold rows that each pass it.
    const decoded = Number(group.total_byte_size);
    if (decoded > rows * maxLineBytes + group.columns.length * COLUMN_CHUNK_OVERHEAD) {
      const message = `rows ${rowStart + 1}-${rowEnd} (row group ${index + 1}) decode to ${decoded} bytes, more than --max-line-bytes (${maxLineBytes}) a row allows; write smaller rows, or raise --max-line-bytes`;
      yield [{ kind: "refused", line: rowStart + 1, field: "", message }];
      rowStart = rowEnd;
      continue;
    }
    try {
      const objects = await parquetReadObjects({
        file: buffer,
        metadata,
        compressors,
        rowStart,
        rowEnd,
      });
      yield objects.map((row, offset) =>
        rowOutcome(row, rowStart + offset + 1, reading, maxLineBytes),
      );
    } catch (error) {
      const message = `rows ${rowStart + 1}-${rowEnd} (row group ${index + 1}) cannot be decoded (${detail(error)}); the other row groups are read`;
      yield [{ kind: "refused", line: rowStart + 1, field: "", message }];
    }
    rowStart = rowEnd;
  }
  await hashUpTo(bytes);
}

/** Page headers and statistics of a column chunk, counted in its decoded size. */
const COLUMN_CHUNK_OVERHEAD = 4096;

/** Reads of the open file, as hyparquet asks for them; never the whole file at once. */
function handleBuffer(handle: FileHandle, bytes: number): AsyncBuffer {
  return {
    byteLength: bytes,
    async slice(start: number, end = bytes): Promise<ArrayBuffer> {
      const out = new Uint8Array(Math.max(0, end - start));
      let at = 0;
      while (at < out.length) {
        const { bytesRead } = await handle.read(out, at, out.length - at, start + at);
        if (bytesRead === 0) throw new Error(`file ends at byte ${start + at}, expected ${end}`);
        at += bytesRead;
      }
      return out.buffer;
    },
  };
}

/** Where a row group's last column chunk ends in the file. */
function groupEnd(group: FileMetaData["row_groups"][number]): number {
  let end = 0;
  for (const column of group.columns) {
    const meta = column.meta_data;
    if (meta === undefined) continue;
    const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset);
    end = Math.max(end, start + Number(meta.total_compressed_size));
  }
  return end;
}

function rowOutcome(
  row: Record<string, unknown>,
  line: number,
  reading: CellReading,
  maxLineBytes: number,
): LineOutcome {
  const size = rowBytes(row);
  if (size > maxLineBytes) {
    const message = `row of about ${size} bytes, longer than ${maxLineBytes}; shorten it or raise --max-line-bytes`;
    return { kind: "refused", line, field: "", message };
  }
  const record: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(row)) {
    if (raw === null || raw === undefined) continue;
    const value = typeof raw === "string" ? raw : jsonValue(raw);
    if (value === UNDECODABLE) {
      return {
        kind: "refused",
        line,
        field: column,
        message: "binary value that is not UTF-8 text; store the column as a string",
      };
    }
    record[column] = value;
  }
  // Strings are read as values once mapped, as CSV cells are (`cellValue`).
  return parseRecord(record, line, reading.options, reading.validate);
}

/**
 * A row's size as its text would count against a JSONL line: string and binary cells by
 * their length (UTF-16 units, a bound close enough for a limit), nested values as JSON.
 */
function rowBytes(row: Record<string, unknown>): number {
  let size = 0;
  for (const value of Object.values(row)) {
    if (typeof value === "string") size += value.length;
    else if (value instanceof Uint8Array) size += value.length;
    else if (typeof value === "object" && value !== null && !(value instanceof Date)) {
      size += JSON.stringify(value, (_key, item) =>
        typeof item === "bigint" ? Number(item) : item,
      ).length;
    } else size += 8;
  }
  return size;
}

const UNDECODABLE = Symbol("undecodable");
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A Parquet value as the JSON value a JSONL line would hold. */
function jsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) {
    try {
      return utf8.decode(value);
    } catch {
      return UNDECODABLE;
    }
  }
  if (Array.isArray(value)) {
    const items = value.map(jsonValue);
    return items.includes(UNDECODABLE) ? UNDECODABLE : items;
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const converted = jsonValue(item);
      if (converted === UNDECODABLE) return UNDECODABLE;
      out[key] = converted;
    }
    return out;
  }
  return value;
}

function detail(error: unknown): string {
  return printable(error instanceof Error ? error.message : String(error));
}
