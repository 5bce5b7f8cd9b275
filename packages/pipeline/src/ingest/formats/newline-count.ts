const NEWLINE = 0x0a;

/**
 * Counts the line feeds in a byte stream up to an offset, for readers (csv-parse) that
 * report where a record ends in bytes but count lines their own way: csv-parse counts a
 * CRLF inside a quoted cell as two lines. A file's line here is what the JSONL reader and
 * an editor count: one per LF. Chunks are held only until counted past.
 */
export class NewlineCount {
  private readonly pending: Uint8Array[] = [];
  /** Bytes of `pending[0]` already counted. */
  private offsetInFirst = 0;
  private counted = 0;
  private newlines = 0;
  private lastByte: number | undefined;

  /** Passes the stream through, keeping each chunk to count later. */
  async *track(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      this.pending.push(chunk);
      yield chunk;
    }
  }

  /** Line feeds in the first `offset` bytes, and whether the byte before `offset` is one. */
  through(offset: number): { newlines: number; endsWithNewline: boolean } {
    while (this.counted < offset && this.pending.length > 0) {
      const chunk = this.pending[0] as Uint8Array;
      const end = Math.min(chunk.length, this.offsetInFirst + offset - this.counted);
      this.newlines += countByte(chunk, NEWLINE, this.offsetInFirst, end);
      if (end > this.offsetInFirst) this.lastByte = chunk[end - 1];
      this.counted += end - this.offsetInFirst;
      this.offsetInFirst = end;
      if (end === chunk.length) {
        this.pending.shift();
        this.offsetInFirst = 0;
      }
    }
    return { newlines: this.newlines, endsWithNewline: this.lastByte === NEWLINE };
  }
}

/** Occurrences of `byte` in `chunk[from, to)`, found with Buffer's native search. */
function countByte(chunk: Uint8Array, byte: number, from: number, to: number): number {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, to);
  let count = 0;
  for (let at = bytes.indexOf(byte, from); at >= 0; at = bytes.indexOf(byte, at + 1)) count += 1;
  return count;
}

/** Line feeds in a string (a record's cells, say). */
export function newlinesIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count += 1;
  return count;
}
