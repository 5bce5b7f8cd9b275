/**
 * Builds the embedded store's empty database cluster once, at build time, into
 * dist/pglite-template.tar.gz. A fresh store folder is unpacked from it instead of running
 * initdb inside the user's process: initdb grows PGlite's WASM memory by ~550 MB, and WASM
 * memory is never given back, so a first `assay run` would carry it to the end.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";

const out = new URL("../dist/pglite-template.tar.gz", import.meta.url);
mkdirSync(new URL(".", out), { recursive: true });
const db = await PGlite.create();
const archive = await db.dumpDataDir("gzip");
await db.close();
writeFileSync(out, Buffer.from(await archive.arrayBuffer()));
