import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { runAssay } from "@assay/test-support/run-assay";
import { queryRows } from "@assay/test-support/stores";
import { mountTmpfs, resizeTmpfs, unmountTmpfs } from "@assay/test-support/tmpfs";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay run -` copies standard input to the temporary folder before anything is stored. On
// a temporary folder too small for the dataset (a real tmpfs), the copy fails: the error
// must name the copy's path and the missing space, and no run may be left for a resume to
// trust. Once there is room, the same command stores every line, as a new run.
const work = mkdtempSync(join(tmpdir(), "assay-full-disk-stdin-"));
const disk = join(work, "tmp");
const store = join(work, "store");
const notMounted = mountTmpfs(disk, "64k");
if (notMounted !== undefined) console.warn(`full-disk stdin test skipped: ${notMounted}`);
afterAll(() => {
  unmountTmpfs(disk);
  rmSync(work, { recursive: true, force: true });
});

const LINES = 3000;
const dataset = Buffer.from(
  Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({ id: `s${i}`, question: `Question ${i}?`, answer: "a fox", target: "a fox" }),
  ).join("\n"),
);
const env = { TMPDIR: disk };
const args = ["run", "-", "--db", store, "--run-id", "piped", "--json"];

async function runsStored(): Promise<unknown[]> {
  if (!existsSync(store)) return [];
  const opened = await openStore({ dataDir: store, create: false });
  try {
    return await queryRows(opened, "SELECT id FROM runs");
  } finally {
    await opened.close();
  }
}

describe.skipIf(notMounted !== undefined)("standard input spooled to a full disk", () => {
  it("says where the copy ran out of space, stores nothing, and runs whole once there is room", async () => {
    // The fault can hit: the dataset is larger than the whole temporary folder.
    expect(dataset.length).toBeGreaterThan(64 * 1024);
    const full = await runAssay(args, { env, stdin: dataset });
    expect(full.stderr).toMatch(
      new RegExp(
        `could not copy standard input to ${disk}/assay-stdin-\\w+/dataset: there is no free space left`,
      ),
    );
    expect(full.stderr).toContain("Point TMPDIR at a folder with room");
    expect(full.code).toBe(ExitCode.unavailable);
    // Nothing half-stored: no run, and the partial copy is gone from the temporary folder.
    expect(await runsStored()).toEqual([]);
    expect(readdirSync(disk)).toEqual([]);

    resizeTmpfs(disk, "64m");
    const roomy = await runAssay(args, { env, stdin: dataset });
    expect(roomy.code, roomy.stderr).toBe(ExitCode.ok);
    expect(roomy.stderr).not.toContain("Resuming");
    expect(JSON.parse(roomy.stdout).samples).toBe(LINES);
  }, 300_000);
});
