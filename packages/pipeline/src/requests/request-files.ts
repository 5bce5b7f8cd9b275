import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { REQUEST_LIMITS, type RequestFormat } from "@assay/core";

/** One file written: where, and what it holds. */
export interface RequestFile {
  path: string;
  requests: number;
  bytes: number;
}

/** JSONL for OpenAI and vLLM; Anthropic's create body is `{"requests": [...]}`, a line each. */
function framing(format: RequestFormat) {
  return format === "anthropic-batch"
    ? { open: '{"requests":[\n', separator: ",\n", close: "\n]}\n", lineEnd: "" }
    : { open: "", separator: "", close: "", lineEnd: "\n" };
}

/**
 * Writes requests into numbered files `<format>-0001<ext>`, `-0002`, … in `dir`, starting
 * the next file before one would pass the provider's request count or byte size. Custom
 * ids are checked for duplicates within each file (a provider refuses the whole file),
 * which holds at most one file's ids in memory.
 */
export class RequestFileWriter {
  readonly #dir: string;
  readonly #format: RequestFormat;
  readonly #maxRequests: number;
  readonly #maxBytes: number;
  readonly #frame: ReturnType<typeof framing>;
  readonly #files: RequestFile[] = [];
  #stream: WriteStream | undefined;
  #ids = new Map<string, number>();

  constructor(
    dir: string,
    format: RequestFormat,
    limits: { maxRequests: number; maxBytes: number },
  ) {
    this.#dir = dir;
    this.#format = format;
    this.#maxRequests = limits.maxRequests;
    this.#maxBytes = limits.maxBytes;
    this.#frame = framing(format);
  }

  /** Refuses to start where files of this format already are: a stale one would be sent. */
  async assertNoEarlierFiles(): Promise<string | undefined> {
    const prefix = `${this.#format}-`;
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    return names.find((name) => name.startsWith(prefix));
  }

  /** The line that gave this custom id earlier in the current file, if one did. */
  earlierLineOf(customId: string): number | undefined {
    return this.#ids.get(customId);
  }

  /** Bytes a file holds with one more request of `bytes`. */
  #bytesWith(file: RequestFile, bytes: number): number {
    const { open, separator, close, lineEnd } = this.#frame;
    const separators = file.requests === 0 ? 0 : Buffer.byteLength(separator);
    const opened = file.requests === 0 ? Buffer.byteLength(open) + Buffer.byteLength(close) : 0;
    return file.bytes + opened + separators + bytes + Buffer.byteLength(lineEnd);
  }

  async write(customId: string, json: string, bytes: number, line: number): Promise<void> {
    let file = this.#files.at(-1);
    if (
      file === undefined ||
      file.requests >= this.#maxRequests ||
      this.#bytesWith(file, bytes) > this.#maxBytes
    ) {
      file = await this.#startFile();
    }
    const { open, separator, lineEnd } = this.#frame;
    const before = file.requests === 0 ? open : separator;
    await this.#put(`${before}${json}${lineEnd}`);
    file.bytes = this.#bytesWith(file, bytes);
    file.requests += 1;
    this.#ids.set(customId, line);
  }

  /** Closes the last file; returns every file written. */
  async close(): Promise<RequestFile[]> {
    await this.#endFile();
    return [...this.#files];
  }

  async #startFile(): Promise<RequestFile> {
    await this.#endFile();
    const number = String(this.#files.length + 1).padStart(4, "0");
    const path = join(
      this.#dir,
      `${this.#format}-${number}${REQUEST_LIMITS[this.#format].extension}`,
    );
    this.#stream = createWriteStream(path, { flags: "wx" });
    this.#ids = new Map();
    const file: RequestFile = { path, requests: 0, bytes: 0 };
    this.#files.push(file);
    return file;
  }

  async #endFile(): Promise<void> {
    const stream = this.#stream;
    if (stream === undefined) return;
    this.#stream = undefined;
    stream.end(this.#frame.close);
    await once(stream, "finish");
  }

  async #put(text: string): Promise<void> {
    const stream = this.#stream as WriteStream;
    if (!stream.write(text)) await once(stream, "drain");
  }
}
