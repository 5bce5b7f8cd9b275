const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the line feeds in a byte stream up to an offset, for readers (csv-parse) that
 * report where a record ends in bytes but count lines their own way: csv-parse counts a
 * CRLF inside a quoted cell as two lines. A file's line here is what the JSONL reader and
 * an editor count: one per LF, or one per CR in a file whose lines end in CR alone (as
 * old Mac tools wrote them: no LF before its first CR). Chunks are held only until
 * counted past.
 */
export class NewlineCount {
  private readonly pending: Uint8Array[] = [];
  /** Bytes of `pending[0]` already counted. */
  private offsetInFirst = 0;
  private counted = 0;
  private newlines = 0;
  private lastByte: number | undefined;
  /** The byte that ends a line in this file: told by the first chunk that holds LF or CR. */
  private lineEnd: number | undefined;

  /** Passes the stream through, keeping each chunk to count later. */
  async *track(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      this.pending.push(chunk);
      yield chunk;
    }
  }

  /** Line ends in the first `offset` bytes, and whether the byte before `offset` is one. */
  through(offset: number): { newlines: number; endsWithNewline: boolean } {
    while (this.counted < offset && this.pending.length > 0) {
      const chunk = this.pending[0] as Uint8Array;
      this.lineEnd ??= lineEndOf(chunk);
      const end = Math.min(chunk.length, this.offsetInFirst + offset - this.counted);
      this.newlines += countByte(chunk, this.lineEnd ?? LF, this.offsetInFirst, end);
      if (end > this.offsetInFirst) this.lastByte = chunk[end - 1];
      this.counted += end - this.offsetInFirst;
      this.offsetInFirst = end;
      if (end === chunk.length) {
        this.pending.shift();
        this.offsetInFirst = 0;
      }
    }
    return { newlines: this.newlines, endsWithNewline: this.lastByte === (this.lineEnd ?? LF) };
  }

  /** Line ends in a string (a record's cells, say), by this file's rule. */
  newlinesIn(text: string): number {
    const end = this.lineEnd === CR ? "\r" : "\n";
    let count = 0;
    for (let at = text.indexOf(end); at >= 0; at = text.indexOf(end, at + 1)) count += 1;
    return count;
  }
}

/**
 * LF when the chunk holds one; CR when it holds a CR but no LF (a CR as its last byte may
 * be the first half of a CRLF, so that alone tells nothing); undefined when it holds neither.
 */
function lineEndOf(chunk: Uint8Array): number | undefined {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  if (bytes.indexOf(LF) >= 0) return LF;
  const cr = bytes.indexOf(CR);
  return cr >= 0 && cr < bytes.length - 1 ? CR : undefined;
}

/**
 * The line feeds in `bytes`: how many lines a batch of whole JSONL lines spans (both
 * batch readers number their lines with it).
 */
export function countLineFeeds(bytes: Uint8Array): number {
  return countByte(bytes, LF, 0, bytes.length);
}

/** Occurrences of `byte` in `chunk[from, to)`, found with Buffer's native search. */
function countByte(chunk: Uint8Array, byte: number, from: number, to: number): number {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, to);
  let count = 0;
  for (let at = bytes.indexOf(byte, from); at >= 0; at = bytes.indexOf(byte, at + 1)) count += 1;
  return count;
}
