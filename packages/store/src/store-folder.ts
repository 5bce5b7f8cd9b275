import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { AssayError, ConfigError } from "@assay/core";

/** A folder given as the embedded store that is not one, or is missing where it must exist. */
export class StoreFolderError extends AssayError {
  override name = "StoreFolderError";
}

/** What a folder given as the embedded store holds. */
export type StoreFolderState = "missing" | "empty" | "store";

/**
 * Looks at a folder before the embedded store opens it. PGlite initialises any folder
 * without a database in it, overwriting files such as postgresql.conf, so only a missing
 * folder, an empty one, or one that already holds a store may be opened; anything else is
 * refused before a file is touched.
 */
export async function inspectStoreFolder(dir: string): Promise<StoreFolderState> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return "missing";
    if (code === "ENOTDIR") {
      throw new StoreFolderError(
        `${dir} is a file, not a folder: the embedded store needs a folder of its own.`,
      );
    }
    throw new ConfigError(
      `Cannot read the embedded store's folder ${dir} (${String(code ?? error)}): check its permissions.`,
    );
  }
  if (entries.length === 0) return "empty";
  if (await holdsDatabase(dir)) return "store";
  const shown = entries.slice(0, 3).join(", ") + (entries.length > 3 ? ", ..." : "");
  throw new StoreFolderError(
    `${dir} is not an Assay store: it holds other files (${shown}) that the embedded store ` +
      "would overwrite. Pass a new or empty folder, or the folder of an existing store.",
  );
}

/** The files every PGlite (Postgres) data folder has once initialised. */
async function holdsDatabase(dir: string): Promise<boolean> {
  const isFile = (path: string) =>
    stat(path).then(
      (info) => info.isFile(),
      () => false,
    );
  return (
    (await isFile(join(dir, "PG_VERSION"))) && (await isFile(join(dir, "global", "pg_control")))
  );
}
