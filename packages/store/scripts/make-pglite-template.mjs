/**
 * Builds the embedded store's database cluster once, at build time, so that a new store is
 * copied rather than initialised: initdb grows PGlite's WASM memory by ~550 MB, and WASM
 * memory is never given back, so a first `assay run` would carry it to the end. The cluster
 * is migrated as a store in the default schema is (`migratePglite`, from the compiled
 * sources): a new store opens with nothing to apply, ~2 s of CPU less per new store.
 * Two forms of the same cluster:
 * - dist/pglite-template/: a folder, copied file by file into a new store folder on disk
 *   (nothing of it passes through the process's memory);
 * - dist/pglite-template.tar.gz: an archive, for in-memory stores (memory://), which can
 *   only be loaded through PGlite's own unpacking.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { rename } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { migratePglite } from "../dist/open-pglite.js";

const dist = new URL("../dist/", import.meta.url);
const folder = fileURLToPath(new URL("pglite-template", dist));
const archive = new URL("pglite-template.tar.gz", dist);
// Made beside its final place, then renamed: an interrupted build leaves no half cluster.
const staging = mkdtempSync(`${folder}-staging-`);
try {
  const db = await PGlite.create(staging);
  await migratePglite(db, undefined);
  const dump = await db.dumpDataDir("gzip");
  await db.close();
  writeFileSync(archive, Buffer.from(await dump.arrayBuffer()));
  rmSync(folder, { recursive: true, force: true });
  await rename(staging, folder);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
