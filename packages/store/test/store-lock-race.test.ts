import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processOutput } from "@assay/test-support/process-output";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

// Processes that take an embedded store's lock at the same moment: whatever their number
// and whoever comes first, exactly one holds it while it holds it, and the lock is gone
// once every holder let go. Each child waits for a start time so their attempts overlap.

const LOCK = fileURLToPath(new URL("../src/store-lock.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../../node_modules/tsx/dist/esm/index.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "assay-lock-race-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CHILD = `
  const { lockStoreFolder } = await import(process.env.LOCK_MODULE);
  await new Promise((r) => setTimeout(r, Number(process.env.START_AT) - Date.now()));
  try {
    const lock = await lockStoreFolder(process.env.STORE, { command: "race", waitMs: 0 });
    console.log("held");
    await new Promise((r) => setTimeout(r, 300));
    await lock.release();
  } catch (error) {
    console.log(error.name === "StoreInUseError" ? "refused" : "failed: " + error.message);
  }
`;

function contender(store: string, startAt: number) {
  const child = spawn(
    process.execPath,
    ["--conditions=@assay/source", "--import", TSX, "--input-type=module", "-e", CHILD],
    {
      env: { ...process.env, LOCK_MODULE: LOCK, STORE: store, START_AT: String(startAt) },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return processOutput(child);
}

describe("the embedded store's lock, taken by several processes at once", () => {
  it("is held by exactly one of them, and released after", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), async (processes) => {
        const store = join(work, `store-${round++}`);
        // Far enough ahead that every child has loaded before the shared start.
        const startAt = Date.now() + 3000;
        const outcomes = await Promise.all(
          Array.from({ length: processes }, () => contender(store, startAt)),
        );
        const said = outcomes.map((o) => o.stdout.trim() || o.stderr.trim());
        expect(
          said.filter((s) => s === "held"),
          said.join(" | "),
        ).toHaveLength(1);
        expect(said.filter((s) => s === "refused")).toHaveLength(processes - 1);
        expect(existsSync(`${store}.lock`)).toBe(false);
      }),
      { numRuns: 4, seed: 7 },
    );
  });
});
