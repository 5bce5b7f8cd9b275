import { type FileHandle, open } from "node:fs/promises";
import { countLineFeeds } from "./formats/newline-count.js";

/**
 * Whole lines of a file as bytes, the first of them numbered `firstLine`; each ends with
 * its newline except the file's last. `bytes` owns its memory, so it can be handed to a
 * parse thread without a copy.
 */
export interface LineBytes {
  firstLine: number;
  bytes: Uint8Array<ArrayBuffer>;
}

/** Lines as bytes, or one line that was longer than the limit (skipped, never buffered). */
export type LineBatch =
  | ({ kind: "lines" } & LineBytes)
  | { kind: "too_long"; line: number; bytes: number };

export interface ReadLineBatchesOptions {
  /** A line longer than this many bytes comes as `too_long`. */
  maxLineBytes: number;
  /** Bytes read at a time; a batch holds about this many. Default 128 KiB. */
  readBytes?: number;
  /** Sees every byte read, in file order (a hash of what the lines came from). */
  onRead?: (bytes: Uint8Array) => void;
}

const NEWLINE = 0x0a;
const NOTHING = new Uint8Array(0);

/**
 * Streams a file as batches of whole lines, undecoded: splitting the lines, decoding and
 * checking them is left to whoever parses the batch (a parse thread), so the reading
 * thread only copies bytes and counts newlines. Lines keep their numbers; a line longer
 * than `maxLineBytes` that does not fit a batch is reported by number and skipped.
 * `source` is a path, or a file already open, read from its start and left open.
 */
export async function* readLineBatches(
  source: string | FileHandle,
  options: ReadLineBatchesOptions,
): AsyncGenerator<LineBatch> {
  const { maxLineBytes } = options;
  const readBytes = options.readBytes ?? 128 << 10;
  const file = typeof source === "string" ? await open(source, "r") : source;
  try {
    const buffer = Buffer.allocUnsafeSlow(readBytes);
    /** The start of a line whose newline is not read yet. */
    let carry: Uint8Array<ArrayBuffer> = NOTHING;
    /** Bytes of an over-long line being skipped up to its newline, or -1. */
    let skipped = -1;
    let next = 1;
    // Positioned reads: a handle shared by several readers is read from its start by each.
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, readBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let read = buffer.subarray(0, bytesRead);
      options.onRead?.(read);
      if (skipped >= 0) {
        const end = read.indexOf(NEWLINE);
        if (end === -1) {
          skipped += read.length;
          continue;
        }
        yield { kind: "too_long", line: next, bytes: skipped + end };
        next += 1;
        skipped = -1;
        read = read.subarray(end + 1);
      }
      const last = read.lastIndexOf(NEWLINE);
      if (last === -1) {
        carry = joined(carry, read, read.length);
      } else {
        const lines = joined(carry, read, last + 1);
        carry = joined(NOTHING, read.subarray(last + 1), read.length - last - 1);
        // Counted before the batch is handed over: handing it to a thread detaches it.
        const firstLine = next;
        next += countLineFeeds(lines);
        yield { kind: "lines", firstLine, bytes: lines };
      }
      if (carry.length > maxLineBytes) {
        skipped = carry.length;
        carry = NOTHING;
      }
    }
    if (skipped >= 0) yield { kind: "too_long", line: next, bytes: skipped };
    else if (carry.length > 0) yield { kind: "lines", firstLine: next, bytes: carry };
  } finally {
    if (typeof source === "string") await file.close();
  }
}

/** `head` followed by the first `length` bytes of `tail`, in memory of its own. */
function joined(head: Uint8Array, tail: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(head.length + length);
  out.set(head);
  out.set(tail.subarray(0, length), head.length);
  return out;
}
