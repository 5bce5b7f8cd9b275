import { TextDecoder } from "node:util";
import { type LineBytes, readLineBatches } from "./read-line-batches.js";

/** One line of a text file, or why it could not be read. */
export type RawLine =
  | { number: number; text: string }
  | { number: number; problem: LineProblem; bytes: number };

/** A byte-order mark anywhere but the start of the file is a `stray_bom`. */
export type LineProblem = "too_long" | "invalid_utf8" | "stray_bom";

export interface ReadLinesOptions {
  /** Lines longer than this many bytes are reported, not buffered. */
  maxLineBytes: number;
}

const NEWLINE = 0x0a;
const BOM = 0xfeff;
const decoder = lineDecoder();

/**
 * Streams a file line by line: the batches of `readLineBatches`, split by `eachLine`, the
 * same two steps a dataset's lines take (on a parse thread), so that both count, decode
 * and refuse lines alike. Written by hand rather than with `node:readline` because
 * readline buffers a line of any length and silently replaces invalid UTF-8; a nightly
 * dataset needs both reported with their line number.
 */
export async function* readLines(path: string, options: ReadLinesOptions): AsyncGenerator<RawLine> {
  const { maxLineBytes } = options;
  for await (const batch of readLineBatches(path, { maxLineBytes })) {
    if (batch.kind === "too_long")
      yield { number: batch.line, problem: "too_long", bytes: batch.bytes };
    else yield* eachLine(batch, maxLineBytes, (raw) => raw);
  }
}

/**
 * Each line of a batch of whole lines (`readLineBatches`), numbered from its first line,
 * as `outcomeOf` makes it of the line read, or found too long or not UTF-8.
 */
export function eachLine<T>(
  batch: LineBytes,
  maxLineBytes: number,
  outcomeOf: (raw: RawLine) => T,
): T[] {
  const { bytes } = batch;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const outcomes: T[] = [];
  let number = batch.firstLine;
  for (let start = 0; start < buffer.length; number += 1) {
    let end = buffer.indexOf(NEWLINE, start);
    if (end === -1) end = buffer.length;
    const length = end - start;
    const raw: RawLine =
      length > maxLineBytes
        ? { number, problem: "too_long", bytes: length }
        : decodeLine(decoder, buffer.subarray(start, end), number);
    outcomes.push(outcomeOf(raw));
    start = end + 1;
  }
  return outcomes;
}

/** The decoder `decodeLine` needs. */
export function lineDecoder(): TextDecoder {
  // ignoreBOM keeps a byte-order mark in the text, so that one past line 1 can be reported.
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
}

/**
 * One line's bytes (without its newline) as text, or why they are not a line: invalid
 * UTF-8, or a byte-order mark anywhere but at the start of line 1. A final CR is dropped.
 * `decoder` comes from `lineDecoder`.
 */
export function decodeLine(decoder: TextDecoder, buffer: Uint8Array, number: number): RawLine {
  const withoutCr = buffer[buffer.length - 1] === 0x0d ? buffer.subarray(0, -1) : buffer;
  let text: string;
  try {
    text = decoder.decode(withoutCr);
  } catch {
    return { number, problem: "invalid_utf8", bytes: buffer.length };
  }
  // A byte-order mark is only legal at the very start of the file; further down it marks
  // files that were concatenated, and JSON.parse would call it a syntax error.
  if (text.charCodeAt(0) !== BOM) return { number, text };
  if (number === 1) return { number, text: text.slice(1) };
  return { number, problem: "stray_bom", bytes: buffer.length };
}
