import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAssay } from "@assay/test-support/run-assay";
import { freeBytes, mountTmpfs, resizeTmpfs, unmountTmpfs } from "@assay/test-support/tmpfs";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The embedded store on a disk that fills during a run: a real tmpfs, sized so that the
// store's template (~40 MB) fits and the run's rows do not.
const SAMPLES = 20_000;
const SCORERS = ["f1", "exact"];
const STORE_FLOOR = 64 * 1024 * 1024; // MIN_FREE_BYTES in packages/store/src/disk-room.ts
const BOUND_MS = 240_000; // generous: the machine is slow and shared (four runs fit the test's limit)
const work = mkdtempSync(join(tmpdir(), "assay-full-disk-store-"));
const disk = join(work, "disk");
const store = join(disk, "store");
const notMounted = mountTmpfs(disk, "110m");
if (notMounted !== undefined) console.warn(`full-disk store tests skipped: ${notMounted}`);
afterAll(() => {
  unmountTmpfs(disk);
  rmSync(work, { recursive: true, force: true });
});

const padding = "x".repeat(200);
const ids = Array.from({ length: SAMPLES }, (_, i) => `s${i}`);
writeFileSync(
  join(work, "data.jsonl"),
  `${ids.map((id) => JSON.stringify({ id, question: `${id}? ${padding}`, answer: `a fox ${padding}`, target: ["a fox"] })).join("\n")}\n`,
);
writeFileSync(
  join(work, "spec.yaml"),
  `default:\n  scorers: [${SCORERS.map((name) => `{ name: ${name} }`).join(", ")}]\n`,
);

/** Runs `assay` and kills it if it has not exited within BOUND_MS (a hang is a failure). */
async function assayWithin(args: string[]) {
  let child: ChildProcess | undefined;
  let killed = false;
  const started = Date.now();
  const timer = setInterval(() => {
    if (child !== undefined && Date.now() - started > BOUND_MS) {
      killed = true;
      child.kill("SIGKILL");
    }
  }, 1000);
  const result = await runAssay(args, {
    cwd: work,
    onStderr: (_text, spawned) => {
      child = spawned;
    },
  }).finally(() => clearInterval(timer));
  return { ...result, killed, ms: Date.now() - started };
}

const runArgs = ["run", "data.jsonl", "--spec", "spec.yaml", "--run-id", "r", "--db", store];
// A finished run from an earlier night, there to be pruned when the disk fills.
const OLD_SAMPLES = 4_000;
writeFileSync(
  join(work, "old.jsonl"),
  `${ids
    .slice(0, OLD_SAMPLES)
    .map((id) => JSON.stringify({ id, question: `${id}?`, answer: "a fox", target: ["a fox"] }))
    .join("\n")}\n`,
);
const oldArgs = ["run", "old.jsonl", "--spec", "spec.yaml", "--run-id", "old", "--db", store];

describe.skipIf(notMounted !== undefined)("the embedded store on a full disk", () => {
  it("stops the run with a clear error, refuses to open, and resumes whole once freed", async () => {
    const old = await assayWithin(oldArgs);
    expect(old.code, old.stderr).toBe(ExitCode.ok);
    const filled = await assayWithin(runArgs);
    // The fault hit: the run's own rows filled the disk to the store's floor.
    expect(freeBytes(disk)).toBeLessThan(STORE_FLOOR);
    expect(filled.killed, "the run hung on the full disk and was killed").toBe(false);
    expect(filled.stderr).toContain("The disk under the embedded store");
    expect(filled.stderr).toContain("is full");
    expect(filled.code).toBe(ExitCode.unavailable);
    // The way out it names: pruning old runs, which needs less room than writing rows.
    expect(filled.stderr).toContain("`assay prune` drops old runs' raw rows");

    // Filled to the last byte: a file written beside the store runs out (ENOSPC).
    let enospc = false;
    try {
      writeFileSync(join(disk, "filler"), Buffer.alloc(200 * 1024 * 1024));
    } catch (error) {
      enospc = (error as { code?: unknown }).code === "ENOSPC";
    }
    expect(enospc).toBe(true);
    const report = await assayWithin(["report", "r", "--db", store]);
    expect(report.killed, "report hung on the full disk and was killed").toBe(false);
    expect(report.stderr).toContain("is full");
    expect(report.code).toBe(ExitCode.unavailable);
    // Not even a prune opens a store on a disk this full: Postgres would have no room for
    // the WAL of dropping a table.
    const refusedPrune = await assayWithin(["prune", "--keep-last", "0", "--db", store]);
    expect(refusedPrune.killed, "prune hung on the full disk and was killed").toBe(false);
    expect(refusedPrune.stderr).toContain("is full");
    expect(refusedPrune.code).toBe(ExitCode.unavailable);

    // Back to where the run stopped, short of the store's floor: a prune opens the store and
    // drops the finished run's raw rows, and leaves the unfinished one alone.
    rmSync(join(disk, "filler"));
    const beforePrune = freeBytes(disk);
    expect(beforePrune).toBeLessThan(STORE_FLOOR);
    const pruned = await assayWithin(["prune", "--keep-last", "0", "--db", store, "--json"]);
    expect(pruned.code, pruned.stderr).toBe(ExitCode.ok);
    const outcome = JSON.parse(pruned.stdout) as {
      pruned: { runId: string; bytes: number }[];
      skipped: { runId: string; reason: string }[];
    };
    expect(outcome.pruned.map((run) => run.runId)).toEqual(["old"]);
    expect(outcome.skipped.map(({ runId, reason }) => ({ runId, reason }))).toEqual([
      { runId: "r", reason: "unfinished" },
    ]);
    // Dropping the run's partitions gave their files back to the disk.
    const prunedBytes = Number(outcome.pruned[0]?.bytes ?? 0);
    expect(freeBytes(disk) - beforePrune).toBeGreaterThan(prunedBytes / 2);
    console.log(
      `prune on a full disk: ${(beforePrune / 2 ** 20).toFixed(1)} MB free before, ` +
        `${(freeBytes(disk) / 2 ** 20).toFixed(1)} MB after; the run's raw rows took ` +
        `${(prunedBytes / 2 ** 20).toFixed(1)} MB`,
    );

    // Space freed: the same run id resumes and stores every result exactly once.
    resizeTmpfs(disk, "400m");
    const resumed = await assayWithin(runArgs);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
    expect(resumed.stderr).toContain("Resuming run r");
    const exported = await assayWithin(["export", "r", "--db", store, "--format", "jsonl"]);
    expect(exported.code, exported.stderr).toBe(ExitCode.ok);
    const rows = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { sample_id: string; scorer: string });
    const keys = rows.map((row) => `${row.sample_id}/${row.scorer}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(
      ids.flatMap((id) => SCORERS.map((scorer) => `${id}/${scorer}`)).sort(),
    );
    // The pruned run's figures are still reported, from its rollups.
    const oldReport = await assayWithin(["report", "old", "--db", store, "--json"]);
    expect(oldReport.code, oldReport.stderr).toBe(ExitCode.ok);
    expect((JSON.parse(oldReport.stdout) as { report: { samples: number } }).report.samples).toBe(
      OLD_SAMPLES,
    );
  }, 1_200_000);
});
