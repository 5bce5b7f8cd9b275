import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isRunning } from "./process-alive.js";

// The migrated cluster the build made (scripts/make-pglite-template.mjs), so that a new
// store is copied rather than initialised: initdb would leave ~550 MB of WASM memory in
// this process for the rest of its life, and the migrations cost ~2 s of CPU. Without it
// (sources never built) PGlite runs initdb and the store applies every migration.
const TEMPLATE_FOLDER = fileURLToPath(new URL("../dist/pglite-template", import.meta.url));
const TEMPLATE_ARCHIVE = new URL("../dist/pglite-template.tar.gz", import.meta.url);

/**
 * Copies the template cluster into `location`, a missing or empty folder. The copy is made
 * beside it and renamed into place, so a run killed meanwhile leaves the folder as it was
 * (a later run clears the abandoned copy). Copying file to file keeps the cluster out of
 * this process's memory, which unpacking the archive (~100 MB held for the whole run) did
 * not. Returns false when there is no template.
 */
export async function copyTemplateInto(location: string): Promise<boolean> {
  if (!existsSync(join(TEMPLATE_FOLDER, "PG_VERSION"))) return false;
  await removeAbandonedCopies(location);
  const staging = `${location}${COPY_SUFFIX}${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await copyTree(TEMPLATE_FOLDER, staging);
  // rename() cannot replace a folder, even an empty one, on every platform.
  await rmdir(location).catch((error: { code?: unknown }) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(staging, location);
  return true;
}

/**
 * Copies a folder of folders and plain files (a cluster has nothing else). fs.cp walks the
 * tree in JavaScript with several calls per file: for the template's ~1,100 files it cost
 * ~0.4 s of CPU per new store, ten times this (copyFile runs in libuv's thread pool, which
 * also bounds how many files are open at once).
 */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to);
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map((entry) => {
      const [source, target] = [join(from, entry.name), join(to, entry.name)];
      if (entry.isDirectory()) return copyTree(source, target);
      if (entry.isFile()) return copyFile(source, target);
      throw new Error(`The store template holds ${source}, neither a file nor a folder`);
    }),
  );
}

/** The template as an archive, for an in-memory store; undefined without a template. */
export async function templateArchive(): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(TEMPLATE_ARCHIVE)]);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw error;
  }
}

const COPY_SUFFIX = ".assay-copy-";

/** Copies left beside `location` by runs that were killed while copying (their pid is gone). */
async function removeAbandonedCopies(location: string): Promise<void> {
  const prefix = `${basename(location)}${COPY_SUFFIX}`;
  const parent = dirname(location);
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && !isRunning(pid)) {
      await rm(join(parent, name), { recursive: true, force: true });
    }
  }
}
