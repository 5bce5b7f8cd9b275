import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processOutput } from "@assay/test-support/process-output";
import { afterAll, describe, expect, it } from "vitest";

const INDEX = fileURLToPath(new URL("../src/index.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "assay-store-template-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a new embedded store", () => {
  it("is unpacked from the build's empty cluster: the process stays far below initdb's memory", async () => {
    // initdb inside PGlite leaves ~730 MB resident for the life of the process (WASM
    // memory never shrinks); a store unpacked from the template opens at ~300 MB. The
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
  }, 60_000);
});
