import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processOutput } from "@assay/test-support/process-output";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";

const INDEX = fileURLToPath(new URL("../src/index.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "assay-store-template-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a new embedded store", () => {
  it("is copied from the build's empty cluster: the process stays far below initdb's memory", async () => {
    // initdb inside PGlite leaves ~730 MB resident for the life of the process (WASM
    // memory never shrinks); a store copied from the template opens at ~300 MB. The
    // child opens a new store, migrates it, writes and reads a row, and reports its RSS.
    const script = join(work, "open-fresh.mts");
    writeFileSync(
      script,
      `import { openStore } from ${JSON.stringify(INDEX)};
const store = await openStore({ dataDir: process.argv[2], migrate: true });
await store.startRun({ id: "r", spec: {}, transport: "local" });
const found = (await store.getRun("r"))?.id;
await store.close();
console.log(JSON.stringify({ found, rssMb: Math.round(process.memoryUsage().rss / 1e6) }));
`,
    );
    const child = spawn(
      process.execPath,
      ["--conditions=@assay/source", "--import", "tsx", script, join(work, "fresh")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const { code, stdout, stderr } = await processOutput(child);
    expect(code, stderr).toBe(0);
    const { found, rssMb } = JSON.parse(stdout.trim()) as { found: string; rssMb: number };
    expect(found).toBe("r");
    expect(rssMb).toBeLessThan(500);
  });

  it("starts migrated: it takes a run without applying a migration", async () => {
    // The template is migrated at build time; a store copied from it has nothing to apply
    // (a store made by an older version is still migrated, or refused, when opened).
    const store = await openStore({ dataDir: join(work, "migrated"), migrate: false });
    try {
      await store.startRun({ id: "r", spec: {}, transport: "local" });
      expect((await store.getRun("r"))?.id).toBe("r");
    } finally {
      await store.close();
    }
  });

  it("is copied into place whole: what a run killed while copying left beside it is cleared", async () => {
    // The copy is made beside the folder and renamed into place, so a kill can only leave
    // that copy behind, named after its dead process; the folder itself stays empty.
    const folder = join(work, "killed-while-copying");
    mkdirSync(folder);
    const deadPid = await exitedProcessPid();
    const abandoned = `${folder}.assay-copy-${deadPid}`;
    mkdirSync(join(abandoned, "base"), { recursive: true });
    writeFileSync(join(abandoned, "PG_VERSION"), "17\n");
    // A copy being made right now by a live process is not ours to remove.
    const other = join(work, "other-live");
    mkdirSync(other);
    const liveOfOther = `${other}.assay-copy-${process.pid}`;
    mkdirSync(liveOfOther);

    const store = await openStore({ dataDir: folder, migrate: true });
    try {
      await store.startRun({ id: "r", spec: {}, transport: "local" });
      expect((await store.getRun("r"))?.id).toBe("r");
    } finally {
      await store.close();
    }
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(liveOfOther)).toBe(true);
    expect(readdirSync(folder)).toContain("PG_VERSION");
  });
});

/** The pid of a process that has already exited. */
async function exitedProcessPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}
