import { createReadStream } from "node:fs";
import { TextDecoder } from "node:util";

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

/**
 * Streams a file line by line. Written by hand rather than with `node:readline` because
 * readline buffers a line of any length and silently replaces invalid UTF-8; a nightly
 * dataset needs both reported with their line number.
 */
export async function* readLines(path: string, options: ReadLinesOptions): AsyncGenerator<RawLine> {
  const decoder = lineDecoder();
  let parts: Buffer[] = [];
  let bytes = 0;
  let oversize = false;
  let number = 0;

  const finishLine = (): RawLine => {
    number += 1;
    const line = oversize
      ? ({ number, problem: "too_long", bytes } as const)
      : decodeLine(decoder, Buffer.concat(parts, bytes), number);
    parts = [];
    bytes = 0;
    oversize = false;
    return line;
  };

  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buffer = chunk as Buffer;
    let start = 0;
    while (start <= buffer.length) {
      const end = buffer.indexOf(NEWLINE, start);
      const segment = buffer.subarray(start, end === -1 ? buffer.length : end);
      bytes += segment.length;
      if (bytes > options.maxLineBytes) {
        oversize = true;
        parts = [];
      } else if (segment.length > 0) {
        parts.push(segment);
      }
      if (end === -1) break;
      yield finishLine();
      start = end + 1;
    }
  }
  if (bytes > 0) yield finishLine();
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
