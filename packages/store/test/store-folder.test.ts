import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inspectStoreFolder, openStore, StoreFolderError } from "../src/index.js";

// PGlite initialises any folder without a database in it, overwriting what is there. The
// store looks first, and opens only a missing or empty folder or an existing store.
const work = mkdtempSync(join(tmpdir(), "assay-store-folder-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the embedded store's folder", () => {
  it("refuses a folder holding other files, before touching any", async () => {
    const dir = join(work, "notes");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "postgresql.conf"), "mine\n");
    const before = statSync(join(dir, "postgresql.conf"));
    await expect(openStore({ dataDir: dir })).rejects.toThrow(StoreFolderError);
    await expect(openStore({ dataDir: dir })).rejects.toThrow(
      /notes is not an Assay store: it holds other files \(postgresql\.conf, sub\)/,
    );
    expect(readdirSync(dir).sort()).toEqual(["postgresql.conf", "sub"]);
    expect(statSync(join(dir, "postgresql.conf")).mtimeMs).toBe(before.mtimeMs);
  });

  it("refuses a file", async () => {
    const file = join(work, "a-file");
    writeFileSync(file, "x");
    await expect(openStore({ dataDir: file })).rejects.toThrow(/a-file is a file, not a folder/);
  });

  it("with create: false, refuses a missing or empty folder and creates nothing", async () => {
    const missing = join(work, "missing", "store");
    await expect(openStore({ dataDir: missing, create: false })).rejects.toThrow(
      /No embedded store in .*missing.store: the folder does not exist/,
    );
    expect(existsSync(join(work, "missing"))).toBe(false);
    const empty = join(work, "empty");
    mkdirSync(empty);
    await expect(openStore({ dataDir: empty, create: false })).rejects.toThrow(/is empty/);
    expect(readdirSync(empty)).toEqual([]);
  });

  it("tells a store from other folders by the database files in it", async () => {
    const store = join(work, "store");
    mkdirSync(join(store, "global"), { recursive: true });
    expect(await inspectStoreFolder(join(work, "nothing"))).toBe("missing");
    expect(await inspectStoreFolder(join(store, "global"))).toBe("empty");
    writeFileSync(join(store, "PG_VERSION"), "17\n");
    await expect(inspectStoreFolder(store)).rejects.toThrow(StoreFolderError);
    writeFileSync(join(store, "global", "pg_control"), "");
    expect(await inspectStoreFolder(store)).toBe("store");
  });
});
