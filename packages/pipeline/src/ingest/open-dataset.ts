import { constants } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import type { Readable } from "node:stream";
import { InputError } from "@assay/core";
import {
  type Compression,
  type DatasetFormat,
  detectFormat,
  HEAD_BYTES,
} from "./formats/dataset-format.js";
import { STDIN_PATH, STDIN_RESOLVED_PATH, spoolStdin } from "./formats/spool-stdin.js";

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
  /** How its records are written, from its bytes, name and `--format`. */
  readonly format: DatasetFormat;
  /** How its bytes are compressed (JSONL, CSV and TSV only). */
  readonly compression: Compression;
  close(): Promise<void>;
}

export interface OpenDatasetOptions {
  /** The format the user named (`--format`); checked against the bytes. */
  format?: DatasetFormat;
  /** Read for the path `-`. Default: this process's standard input. */
  stdin?: Readable;
}

/**
 * Opens a dataset and tells its format; throws an InputError when there is no regular
 * file to read or its format cannot be read. The path `-` is standard input, copied to a
 * temporary file first (see `spoolStdin`).
 */
export async function openDataset(
  path: string,
  options: OpenDatasetOptions = {},
): Promise<OpenDataset> {
  if (path === STDIN_PATH) {
    const handle = await spoolStdin(options.stdin ?? process.stdin);
    return await withFormat(path, STDIN_RESOLVED_PATH, handle, options.format).catch(
      async (error: unknown) => {
        await handle.close();
        throw error;
      },
    );
  }
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
        message: "not a file; pass a dataset file, or `-` to read standard input",
      });
    }
    const resolvedPath = await realpath(path).catch(() => path);
    return await withFormat(path, resolvedPath, handle, options.format);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function withFormat(
  path: string,
  resolvedPath: string,
  handle: FileHandle,
  requested: DatasetFormat | undefined,
): Promise<OpenDataset> {
  const bytes = (await handle.stat()).size;
  const head = Buffer.alloc(HEAD_BYTES);
  const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
  const { format, compression } = detectFormat(path, head.subarray(0, bytesRead), requested);
  return { path, resolvedPath, bytes, handle, format, compression, close: () => handle.close() };
}

function openFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "EACCES" || code === "EPERM") return "cannot be read: permission denied";
  return "file not found; check the path";
}
