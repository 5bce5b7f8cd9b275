import type { LineBatch } from "../read-line-batches.js";
import { BrokenStreamError, brokenStreamMessage } from "./decompress.js";
import { countLineFeeds } from "./newline-count.js";

/** A batch of lines, or where a compressed stream broke off (nothing after it is read). */
export type StreamBatch = LineBatch | { kind: "broken"; line: number; message: string };

const NEWLINE = 0x0a;

/**
 * `readLineBatches` for bytes that come as a stream (decompressed) rather than from a
 * file: whole lines in batches of about `batchBytes`, numbered from 1, a line longer than
 * `maxLineBytes` reported by number and skipped. When the stream breaks, the partial line
 * it ends in is dropped and the break is the last batch, at that line's number.
 */
export async function* chunkLineBatches(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  batchBytes = 128 << 10,
): AsyncGenerator<StreamBatch> {
  /** Bytes read and not yet yielded: whole lines, then the start of one. */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  /** Bytes of an over-long line being skipped up to its newline, or -1. */
  let skipped = -1;
  let next = 1;

  function* cut(all: boolean): Generator<StreamBatch> {
    const joined = concat(pending, pendingBytes);
    const last = all ? joined.length - 1 : joined.lastIndexOf(NEWLINE);
    if (last >= 0) {
      const lines = joined.slice(0, last + 1);
      const firstLine = next;
      next += countLineFeeds(lines);
      yield { kind: "lines", firstLine, bytes: lines };
    }
    const rest = joined.subarray(last + 1);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
  }

  try {
    for await (let chunk of chunks) {
      if (skipped >= 0) {
        const end = chunk.indexOf(NEWLINE);
        if (end === -1) {
          skipped += chunk.length;
          continue;
        }
        yield { kind: "too_long", line: next, bytes: skipped + end };
        next += 1;
        skipped = -1;
        chunk = chunk.subarray(end + 1);
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= batchBytes || pendingBytes > maxLineBytes) yield* cut(false);
      // What is left is the start of one line: too long already, it is skipped, not kept.
      if (pendingBytes > maxLineBytes) {
        skipped = pendingBytes;
        pending = [];
        pendingBytes = 0;
      }
    }
  } catch (error) {
    if (!(error instanceof BrokenStreamError)) throw error;
    // Whole lines read before the break are good; the line it cut is not.
    if (skipped < 0) yield* cut(false);
    yield { kind: "broken", line: next, message: brokenStreamMessage(error, "lines") };
    return;
  }
  if (skipped >= 0) yield { kind: "too_long", line: next, bytes: skipped };
  else if (pendingBytes > 0) yield* cut(true);
}

function concat(parts: Uint8Array[], bytes: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
