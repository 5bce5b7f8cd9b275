import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open-store.js";
import { registerCalibrationSuite } from "./calibration-suite.js";
import { registerEarlyStopSuite } from "./early-stops-suite.js";
import { scored } from "./fixtures.js";
import { registerStoreSuite, type StoreFactory } from "./store-suite.js";

const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "assay-store-"));
  dirs.push(dir);
  return dir;
}

async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

const pglite: StoreFactory = {
  // A new store folder starts migrated (the build's template cluster is); a schema of its
  // own is a store with no tables yet, as one made before a migration has none of it.
  open: async ({ migrate }) =>
    openStore({ dataDir: await tempDir(), migrate, ...(!migrate && { schema: "unmigrated" }) }),
  cleanup: removeTempDirs,
};
registerStoreSuite("pglite", pglite);
registerEarlyStopSuite("pglite", pglite);
registerCalibrationSuite("pglite", pglite);

describe("embedded store", () => {
  afterAll(removeTempDirs);

  it("creates its folder, migrates itself and keeps data across reopening", async () => {
    const dataDir = join(await tempDir(), "nested", ".assay");
    const first = await openStore({ dataDir });
    await first.startRun({ id: "r", spec: {}, transport: "local" });
    await first.writeScores([scored("r", "s1", "exact", 1)]);
    await first.close();

    const second = await openStore({ dataDir });
    try {
      expect(await second.countResults("r")).toBe(1);
    } finally {
      await second.close();
    }
  });
});
