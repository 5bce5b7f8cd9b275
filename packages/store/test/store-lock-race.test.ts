import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

// Processes that take an embedded store's lock at the same moment: whatever their number
// and whoever comes first, exactly one holds it while it holds it, and the lock is gone
// once every holder let go. The children start together and the holder lets go when told,
// on lines from this process rather than at set times, so a slow machine cannot reorder them.

const LOCK = fileURLToPath(new URL("../src/store-lock.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../../node_modules/tsx/dist/esm/index.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "assay-lock-race-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CHILD = `
  const { lockStoreFolder } = await import(process.env.LOCK_MODULE);
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  console.log("ready");
  await lines.next(); // go
  try {
    const lock = await lockStoreFolder(process.env.STORE, { command: "race", waitMs: 0 });
    console.log("held");
    await lines.next(); // every other contender has tried
    await lock.release();
  } catch (error) {
    console.log(error.name === "StoreInUseError" ? "refused" : "failed: " + error.message);
  }
  process.exit(0);
`;

interface Contender {
  said: () => string;
  tell: (line: string) => void;
  exited: Promise<ProcessOutput>;
  running: () => boolean;
}

function contender(store: string): Contender {
  const child = spawn(
    process.execPath,
    ["--conditions=@assay/source", "--import", TSX, "--input-type=module", "-e", CHILD],
    {
      env: { ...process.env, LOCK_MODULE: LOCK, STORE: store },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  // A child that has ended takes no more lines; writing to it is no failure.
  child.stdin.on("error", () => {});
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const exited = processOutput(child);
  return {
    said: () => stdout,
    tell: (line) => {
      if (child.exitCode === null) child.stdin.write(`${line}\n`);
    },
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
  };
}

/** Resolves once `done` holds (polled: children write and exit on their own time). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the embedded store's lock, taken by several processes at once", () => {
  it("is held by exactly one of them, and released after", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), async (processes) => {
        const store = join(work, `store-${round++}`);
        const contenders = Array.from({ length: processes }, () => contender(store));
        await until(() => contenders.every((c) => c.said().includes("ready") || !c.running()));
        for (const c of contenders) c.tell("go");
        // Each has tried once it holds the lock or has ended; then the holder lets go.
        await until(() => contenders.every((c) => c.said().includes("held") || !c.running()));
        for (const c of contenders) c.tell("release");
        const outcomes = await Promise.all(contenders.map((c) => c.exited));
        const said = outcomes.map((o) => o.stdout.replace("ready", "").trim() || o.stderr.trim());
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
