import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ConfigError, InputError } from "@assay/core";

/** The name a dataset read from standard input goes by: `-`, as typed. */
export const STDIN_PATH = "-";
/** What a run records as the path of a dataset read from standard input. */
export const STDIN_RESOLVED_PATH = "(standard input)";

/**
 * Copies standard input to a file in the temporary folder, removed at once (the open
 * handle keeps its data until it is closed), and returns that handle. A run reads its
 * dataset more than once (the check that it is usable, `--strict`, the hash a resume
 * compares) and a pipe can be read only once: the copy is what every read sees, and
 * memory never holds more than one chunk of it.
 */
export async function spoolStdin(stdin: Readable & { isTTY?: boolean }): Promise<FileHandle> {
  if (stdin.isTTY === true) {
    throw new InputError({
      file: STDIN_PATH,
      line: 0,
      field: "",
      message:
        "standard input is a terminal; pipe a dataset in, e.g. `cat data.jsonl | assay run -`",
    });
  }
  const folder = await mkdtemp(join(tmpdir(), "assay-stdin-"));
  const path = join(folder, "dataset");
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, "w+");
    for await (const chunk of stdin) await handle.write(chunk as Buffer);
    return handle;
  } catch (error) {
    // The copy is removed below and nothing was stored yet: no half dataset is left to trust.
    await handle?.close();
    throw spoolFailure(path, error);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const FULL = new Set(["ENOSPC", "EDQUOT", "EFBIG"]);

/** A copy that ran out of room says where it was written and how to give it room. */
function spoolFailure(path: string, error: unknown): unknown {
  const code = String((error as { code?: unknown }).code);
  if (!FULL.has(code)) return error;
  const why = code === "EDQUOT" ? "the disk quota is used up" : "there is no free space left";
  return new ConfigError(
    `could not copy standard input to ${path}: ${why} (${code}); nothing was stored. ` +
      "Point TMPDIR at a folder with room for the whole dataset, or pass the file by name.",
  );
}
