import type { WriteStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { CliExit, ExitCode } from "./exit-codes.js";

/**
 * Opens `--out` for writing (created or truncated). A path that cannot be written is a
 * usage error that says why, not a stack trace.
 */
export async function openOutFile(path: string): Promise<WriteStream> {
  try {
    const handle = await open(path, "w");
    return handle.createWriteStream();
  } catch (error) {
    throw new CliExit(ExitCode.usage, `Cannot write --out ${path}: ${whyNot(error, path)}.`);
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

/** Writes `text` to `--out` and waits until it is on disk. */
export async function writeOutFile(path: string, text: string): Promise<void> {
  const out = await openOutFile(path);
  await new Promise<void>((resolve, reject) => {
    out.on("error", reject);
    out.end(text, resolve);
  });
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
