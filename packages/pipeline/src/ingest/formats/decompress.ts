import { Readable } from "node:stream";
import { constants, createGunzip } from "node:zlib";
import { Decompress } from "fzstd";
import type { Compression } from "./dataset-format.js";
import { ZstdFrameWalker } from "./zstd-frames.js";

/**
 * The compressed stream ended or broke before its end: what came out before it is good,
 * nothing after it can be read. `truncated` when the file simply stops (a copy not
 * finished), rather than holding bytes that are not valid compressed data; `beyondBound`
 * when the data is valid but asks for more memory than a reader allows.
 */
export class BrokenStreamError extends Error {
  constructor(
    readonly compression: Exclude<Compression, "none">,
    readonly truncated: boolean,
    detail: string,
    readonly beyondBound = false,
  ) {
    super(detail);
  }
}

/** What a user reads where a compressed stream broke off; `unit` is lines or rows. */
export function brokenStreamMessage(error: BrokenStreamError, unit: "lines" | "rows"): string {
  const before = `the ${unit} before it were read and are kept`;
  if (error.beyondBound) return `${error.message}; ${before}`;
  if (error.truncated) {
    return (
      `the ${error.compression} stream is cut off here (the file is truncated: a copy not finished?); ` +
      `${before}; once the whole file is there, rerun with the same --run-id to read the rest`
    );
  }
  return `the ${error.compression} data is corrupt from here (${error.message}); ${before}, none after it can be read`;
}

/** `chunks` decompressed as they come: one compressed chunk in memory at a time. */
export function decompressed(
  chunks: AsyncIterable<Uint8Array>,
  compression: Compression,
): AsyncIterable<Uint8Array> {
  if (compression === "gzip") return gunzipped(chunks);
  if (compression === "zstd") return unzstd(chunks);
  return chunks;
}

async function* gunzipped(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Concatenated gzip members (`cat a.gz b.gz`) read as one stream, as `gunzip` does.
  const gunzip = createGunzip({ chunkSize: 128 << 10 });
  const input = Readable.from(chunks, { objectMode: false });
  input.on("error", (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    const code = (error as { errno?: unknown }).errno;
    if (typeof code !== "number") throw error;
    const truncated = code === constants.Z_BUF_ERROR;
    throw new BrokenStreamError("gzip", truncated, (error as Error).message);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/**
 * Compressed bytes given to the zstd decoder at a time. A zstd block regenerates up to
 * 128 KiB from as little as 4 bytes (an RLE block), and the decoder decodes every whole
 * block it is given at once: a 64 KiB chunk could stand for gigabytes. Given this much,
 * at most ~86 blocks (~11 MiB) come out before they are passed on. The decoder keeps an
 * incomplete block's pieces in a list and joins them once, so small pieces cost little.
 */
export const ZSTD_INPUT_SLICE = 256;

/** zstd through fzstd's streaming decoder (Node 20's zlib has no zstd), memory bounded. */
async function* unzstd(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let out: Uint8Array[] = [];
  const frames = new ZstdFrameWalker();
  const decoder = new Decompress((data) => {
    out.push(data);
  });
  // The bytes of a frame header still being read: held back from the decoder until the
  // walker has seen the whole header, so a refused frame leaves none of its bytes behind
  // (the decoder would call them a cut-off stream).
  let held: Uint8Array = new Uint8Array(0);
  /** Decodes a chunk; what it decoded before any failure is kept to be yielded first. */
  const push = (chunk: Uint8Array, final: boolean): BrokenStreamError | undefined => {
    // Each frame's header is seen before the decoder allocates the window it asks for; the
    // bytes before a refused frame are still decoded, as the stream's end.
    const start = frames.offset - held.length;
    const refused = frames.check(chunk);
    const data = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    const open = refused === undefined && !final ? frames.openHeaderStart : undefined;
    const end = refused?.offset ?? open ?? start + data.length;
    held = open === undefined ? new Uint8Array(0) : data.slice(open - start);
    try {
      decoder.push(data.subarray(0, end - start), final || refused !== undefined);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return new BrokenStreamError("zstd", /unexpected EOF/i.test(message), message);
    }
    if (refused !== undefined) return new BrokenStreamError("zstd", false, refused.message, true);
    return undefined;
  };
  for await (const chunk of chunks) {
    for (let start = 0; start < chunk.length; start += ZSTD_INPUT_SLICE) {
      const broken = push(chunk.subarray(start, start + ZSTD_INPUT_SLICE), false);
      if (out.length > 0) yield* takeAll();
      if (broken !== undefined) throw broken;
    }
  }
  const broken = push(new Uint8Array(0), true);
  yield* takeAll();
  if (broken !== undefined) throw broken;

  function takeAll(): Uint8Array[] {
    const taken = out;
    out = [];
    return taken;
  }
}
