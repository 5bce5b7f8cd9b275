/**
 * The largest window a zstd frame may ask for: the `zstd` tool's own decoder refuses more
 * unless told otherwise (`--memory`, `--long`), and the decoder allocates the window in
 * one piece when the frame starts, so a 20-byte file could otherwise claim 2 GiB.
 */
export const ZSTD_MAX_WINDOW_BYTES = 128 << 20;

/** A frame that asks for a window above the limit, refused before anything is allocated. */
export class ZstdWindowError extends Error {
  constructor(
    readonly windowBytes: number,
    readonly offset: number,
  ) {
    super(
      `the zstd frame at byte ${offset} needs a ${mib(windowBytes)} window, above the ` +
        `${mib(ZSTD_MAX_WINDOW_BYTES)} this reader allows (it was compressed with --long or a ` +
        `high --ultra level?); decompress it first (zstd -d --memory=${Math.ceil(windowBytes / 2 ** 20)}MB) ` +
        "and read the plain file",
    );
  }
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(bytes % 2 ** 20 === 0 ? 0 : 1)} MiB`;
}

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

type Phase = "frame" | "block" | "stop";

/**
 * Walks the frames and blocks of a zstd stream (RFC 8878) as its bytes go by, without
 * decoding them, to see each frame's header before the decoder does. Only the layout is
 * read: block bodies and checksums are skipped by their sizes. Bytes it cannot place (a
 * bad magic number, a reserved block type) end the walk and are left to the decoder,
 * which says what is wrong with them.
 */
export class ZstdFrameWalker {
  #phase: Phase = "frame";
  #header: number[] = [];
  #skip = 0;
  #checksum = false;
  #offset = 0;

  /** Bytes of the stream read so far. */
  get offset(): number {
    return this.#offset;
  }

  /**
   * Where a frame header that has begun but is not yet whole starts, else undefined: bytes
   * from there must not reach the decoder yet, since the header may still be refused.
   */
  get openHeaderStart(): number | undefined {
    if (this.#phase !== "frame" || this.#header.length === 0) return undefined;
    return this.#offset - this.#header.length;
  }

  /**
   * Reads `bytes`, the next part of the stream. A frame whose window is above the bound
   * is returned, not thrown, so that the bytes before it can still be decoded.
   */
  check(bytes: Uint8Array): ZstdWindowError | undefined {
    let at = 0;
    while (at < bytes.length && this.#phase !== "stop") {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, bytes.length - at);
        this.#skip -= step;
        at += step;
        continue;
      }
      this.#header.push(bytes[at] as number);
      at += 1;
      const refused =
        this.#phase === "frame" ? this.#frameHeader(this.#offset + at) : this.#blockHeader();
      if (refused !== undefined) {
        this.#stop();
        return refused;
      }
    }
    this.#offset += bytes.length;
    return undefined;
  }

  #frameHeader(end: number): ZstdWindowError | undefined {
    const header = this.#header;
    if (header.length < 5) return;
    const magic = littleEndian(header, 0, 4);
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (header.length < 8) return;
      this.#skip = littleEndian(header, 4, 4);
      this.#header = [];
      return undefined;
    }
    if (magic !== ZSTD_MAGIC) return this.#stop();
    const descriptor = header[4] as number;
    const singleSegment = (descriptor >> 5) & 1;
    const dictionaryBytes = [0, 1, 2, 4][descriptor & 3] as number;
    const sizeFlag = descriptor >> 6;
    const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
    const windowAt = 5;
    const sizeAt = windowAt + (singleSegment ? 0 : 1) + dictionaryBytes;
    if (header.length < sizeAt + sizeBytes) return;
    const window = singleSegment
      ? littleEndian(header, sizeAt, sizeBytes) + (sizeBytes === 2 ? 256 : 0)
      : windowOf(header[windowAt] as number);
    if (window > ZSTD_MAX_WINDOW_BYTES) return new ZstdWindowError(window, end - header.length);
    this.#checksum = ((descriptor >> 2) & 1) === 1;
    this.#header = [];
    this.#phase = "block";
    return undefined;
  }

  #blockHeader(): undefined {
    if (this.#header.length < 3) return undefined;
    const value = littleEndian(this.#header, 0, 3);
    this.#header = [];
    const last = (value & 1) === 1;
    const type = (value >> 1) & 3;
    if (type === 3) return this.#stop();
    // A raw or compressed block carries its size in bytes; an RLE block one byte.
    this.#skip = type === 1 ? 1 : value >>> 3;
    if (last) {
      this.#skip += this.#checksum ? 4 : 0;
      this.#phase = "frame";
    }
    return undefined;
  }

  #stop(): undefined {
    this.#phase = "stop";
    this.#header = [];
    return undefined;
  }
}

/** The window a frame's window descriptor byte gives: 2^(10+exponent) plus eighths. */
function windowOf(descriptor: number): number {
  const base = 2 ** (10 + (descriptor >> 3));
  return base + (base / 8) * (descriptor & 7);
}

/** `count` bytes from `at` read as a little-endian unsigned number (exact up to 2^53). */
function littleEndian(bytes: number[], at: number, count: number): number {
  let value = 0;
  for (let index = count - 1; index >= 0; index -= 1)
    value = value * 256 + (bytes[at + index] as number);
  return value;
}
