import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";

/**
 * What a file's bytes must hash to. LFS files (every ONNX graph) are named by the sha256
 * of their content; plain git files by their git blob sha1 (`sha1("blob <size>\0" + bytes)`).
 * Where the Hub gives neither, only the size is checked.
 */
export interface ExpectedFile {
  path: string;
  size: number;
  sha256?: string;
  gitSha1?: string;
}

/** A running hash of a file's bytes, in the kind its `ExpectedFile` names. */
export class FileHasher {
  readonly #hash: Hash | null;
  #bytes = 0;

  constructor(readonly expected: ExpectedFile) {
    if (expected.sha256 !== undefined) this.#hash = createHash("sha256");
    else if (expected.gitSha1 !== undefined) {
      this.#hash = createHash("sha1").update(`blob ${expected.size}\0`);
    } else this.#hash = null;
  }

  get bytes(): number {
    return this.#bytes;
  }

  update(chunk: Uint8Array): void {
    this.#hash?.update(chunk);
    this.#bytes += chunk.byteLength;
  }

  /** Null when the bytes are what was expected, else what differs, for an error message. */
  mismatch(): string | null {
    const { size, sha256, gitSha1 } = this.expected;
    if (this.#bytes !== size) return `${this.#bytes} bytes where the Hub lists ${size}`;
    const want = sha256 ?? gitSha1;
    if (want === undefined || this.#hash === null) return null;
    const got = this.#hash.digest("hex");
    if (got === want) return null;
    return `${sha256 !== undefined ? "sha256" : "git blob sha1"} ${got} where the Hub lists ${want}`;
  }
}

/** Feeds a file on disk (or its first `limit` bytes) to `hasher`, streamed. */
export async function hashFile(path: string, hasher: FileHasher, limit?: number): Promise<void> {
  if (limit === 0) return;
  const stream = createReadStream(path, limit === undefined ? {} : { end: limit - 1 });
  for await (const chunk of stream) hasher.update(chunk as Buffer);
}

/** Whether a file on disk holds exactly the expected bytes (the cache's check before reuse). */
export async function fileMatches(path: string, expected: ExpectedFile): Promise<boolean> {
  return (await fileMismatch(path, expected)) === null;
}

/** Null when a file on disk holds exactly the expected bytes; else what differs. */
export async function fileMismatch(path: string, expected: ExpectedFile): Promise<string | null> {
  const hasher = new FileHasher(expected);
  try {
    await hashFile(path, hasher);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "is missing" : `cannot be read (${(error as Error).message})`;
  }
  const mismatch = hasher.mismatch();
  return mismatch === null ? null : `has ${mismatch}`;
}

/** An ETag as the Hub sends it (`W/"…"`, quoted) reduced to the hash it carries. */
export function etagHash(etag: string): string {
  return etag.replace(/^W\//, "").replaceAll('"', "").toLowerCase();
}
