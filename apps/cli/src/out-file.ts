import { createWriteStream, type WriteStream } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { finished } from "node:stream/promises";
import { CliExit, ExitCode } from "./exit-codes.js";

/**
 * An `--out` file being written. The bytes go to a temporary file beside the target, which
 * `commit` flushes to disk (fsync) and renames into place, so the target is either the
 * whole new file or what it was before: never a truncated file left by a full disk or a
 * killed process. `abandon` removes the temporary file.
 */
export interface OutFile {
  stream: WriteStream;
  commit(): Promise<void>;
  abandon(): Promise<void>;
}

export async function openOutFile(path: string): Promise<OutFile> {
  const existing = await stat(path).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) return openDevice(path);
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.assay-tmp`);
  const stream = createWriteStream(temporary);
  await new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", (error) =>
      reject(new CliExit(ExitCode.usage, `Cannot write --out ${path}: ${whyNot(error, path)}.`)),
    );
  });
  const abandon = async () => {
    stream.destroy();
    await rm(temporary, { force: true });
  };
  return {
    stream,
    async commit() {
      try {
        if (!stream.closed)
          await new Promise<void>((resolve) => stream.once("close", () => resolve()));
        // fsync through a new descriptor flushes the file's data all the same.
        const handle = await open(temporary, "r+");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, path);
      } catch (error) {
        await abandon();
        throw writeFailure(path, error);
      }
    },
    abandon,
  };
}

/**
 * An `--out` that exists and is no regular file (a device such as /dev/null or /dev/full,
 * a named pipe) is written as it is: a file renamed over it would replace the device.
 * What the device refuses (ENOSPC from /dev/full) fails the write like a full disk.
 */
async function openDevice(path: string): Promise<OutFile> {
  const stream = createWriteStream(path, { flags: "w" });
  await new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", (error) =>
      reject(new CliExit(ExitCode.usage, `Cannot write --out ${path}: ${whyNot(error, path)}.`)),
    );
  });
  return {
    stream,
    async commit() {
      if (stream.closed) return;
      await new Promise<void>((resolve) => stream.once("close", () => resolve()));
    },
    async abandon() {
      stream.destroy();
    },
  };
}

/**
 * Streams into `--out` through `write` (a pipeline ending in the given stream), then puts
 * the file in place. A failure while writing leaves no file behind and says why.
 */
export async function writeThroughOutFile(
  path: string,
  write: (stream: WriteStream) => Promise<void>,
): Promise<void> {
  const out = await openOutFile(path);
  try {
    await write(out.stream);
  } catch (error) {
    await out.abandon();
    throw isWriteError(error) ? writeFailure(path, error) : error;
  }
  await out.commit();
}

/** A write that failed for the disk's sake: the disk is full, or the device failed. */
export function writeFailure(path: string, error: unknown): CliExit {
  return new CliExit(ExitCode.unavailable, `could not write ${path}: ${whyWriteFailed(error)}`);
}

const WRITE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EIO", "EFBIG", "EROFS"]);

export function isWriteError(error: unknown): boolean {
  return WRITE_ERRORS.has(String((error as { code?: unknown }).code));
}

function whyWriteFailed(error: unknown): string {
  switch ((error as { code?: unknown }).code) {
    case "ENOSPC":
      return "the disk is full";
    case "EDQUOT":
      return "the disk quota is used up";
    case "EFBIG":
      return "the file is larger than the file system allows";
    case "EIO":
      return "the device reported an input/output error";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Checks `--out` before any work (opening the store, reading a run): a folder, or a path
 * whose folder is missing, is refused at once, and nothing is created or truncated yet.
 */
export async function checkOutPath(path: string): Promise<void> {
  const refuse = (why: string) =>
    new CliExit(ExitCode.usage, `Cannot write --out ${path}: ${why}.`);
  const target = await stat(path).catch(() => undefined);
  if (target?.isDirectory() === true) throw refuse("it is a folder; give a file name");
  const folder = await stat(dirname(path)).catch((error: unknown) => error as Error);
  if (folder instanceof Error) throw refuse(whyNot(folder, path));
  if (!folder.isDirectory()) throw refuse("a part of the path is a file, not a folder");
}

/** Writes `text` to `--out` and waits until it is on disk, in place. */
export async function writeOutFile(path: string, text: string): Promise<void> {
  // `finished` rejects on a failed write; end()'s callback would be called with the error.
  await writeThroughOutFile(path, (stream) => finished(stream.end(text)));
}

function whyNot(error: unknown, path: string): string {
  switch ((error as { code?: unknown }).code) {
    case "ENOENT":
      return `the folder ${dirname(path)} does not exist`;
    case "EISDIR":
      return "it is a folder; give a file name";
    case "ENOTDIR":
      return "a part of the path is a file, not a folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
