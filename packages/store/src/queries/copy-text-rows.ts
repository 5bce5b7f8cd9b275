/** Turns one field of COPY's text output (unescaped, never `\N`) into its value. */
export type FieldDecoder = (text: string) => unknown;

export const decodeText: FieldDecoder = (text) => text;
export const decodeNumber: FieldDecoder = (text) => Number(text);
export const decodeBoolean: FieldDecoder = (text) => text === "t";
export const decodeJson: FieldDecoder = (text) => JSON.parse(text);

const NEWLINE = 0x0a;

/**
 * Reads the rows of `COPY (…) TO STDOUT` (text format) from its chunks, one array of values
 * per row, in column order. Chunks end anywhere, even inside a character; a row is decoded
 * once its newline has come. In this format a field never holds a raw tab or newline (they
 * come escaped), `\N` alone is null, and the only escapes are a backslash before one of
 * `\ b f n r t v` (what the server writes; it never writes octal or hex escapes).
 */
export class CopyTextRows {
  readonly #decoders: readonly FieldDecoder[];
  #pending: Buffer | undefined;

  constructor(decoders: readonly FieldDecoder[]) {
    this.#decoders = decoders;
  }

  /** The rows this chunk completes. */
  push(chunk: Buffer): unknown[][] {
    const end = chunk.lastIndexOf(NEWLINE);
    if (end === -1) {
      this.#pending = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
      return [];
    }
    const head = chunk.subarray(0, end);
    const text = (
      this.#pending === undefined ? head : Buffer.concat([this.#pending, head])
    ).toString("utf8");
    this.#pending = end + 1 < chunk.length ? chunk.subarray(end + 1) : undefined;
    return text.split("\n").map((line) => this.#row(line));
  }

  /** Checks that the output ended with a whole row. */
  end(): void {
    if (this.#pending !== undefined && this.#pending.length > 0) {
      throw new Error("COPY output ended inside a row");
    }
  }

  #row(line: string): unknown[] {
    const fields = line.split("\t");
    const decoders = this.#decoders;
    if (fields.length !== decoders.length) {
      throw new Error(`COPY row has ${fields.length} fields, expected ${decoders.length}`);
    }
    const row = new Array<unknown>(fields.length);
    for (let i = 0; i < fields.length; i += 1) {
      const field = fields[i] as string;
      row[i] =
        field === "\\N"
          ? null
          : (decoders[i] as FieldDecoder)(field.includes("\\") ? unescapeField(field) : field);
    }
    return row;
  }
}

const ESCAPED: Record<string, string> = {
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

function unescapeField(field: string): string {
  return field.replace(/\\(.)/gs, (_, char: string) => ESCAPED[char] ?? char);
}
