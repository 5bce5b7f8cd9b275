import { constants } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import { InputError } from "@assay/core";

/**
 * A dataset file held open. Everything a run reads of its dataset (the check that it is
 * usable, `--strict`, the read itself, its identity) goes through this one handle, so a
 * file deleted or replaced after the check cannot leave a run registered without its
 * dataset: the run reads the file it checked.
 */
export interface OpenDataset {
  /** The path as given, used in input errors and stored with the run. */
  readonly path: string;
  /** The path with links and `..` resolved when the file was opened. */
  readonly resolvedPath: string;
  /** The size in bytes when the file was opened. */
  readonly bytes: number;
  readonly handle: FileHandle;
  close(): Promise<void>;
}

/** Opens a dataset; throws an InputError when there is no regular file to read. */
export async function openDataset(path: string): Promise<OpenDataset> {
  let handle: FileHandle;
  try {
    // Non-blocking, so that a FIFO is refused below instead of waiting for a writer.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new InputError({ file: path, line: 0, field: "", message: openFailure(error) });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new InputError({
        file: path,
        line: 0,
        field: "",
        message: "not a file; pass a .jsonl file",
      });
    }
    const resolvedPath = await realpath(path).catch(() => path);
    return { path, resolvedPath, bytes: info.size, handle, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function openFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "EACCES" || code === "EPERM") return "cannot be read: permission denied";
  return "file not found; check the path";
}
