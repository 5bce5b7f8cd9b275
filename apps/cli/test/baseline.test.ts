import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { nightlyRunArgs, writeNightlyDataset } from "@assay/test-support/nightly-dataset";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay baseline` on the embedded store: a release run pinned, two nights after it, each
// compared with it as it completes; prune keeps the pinned run, and once it is unpinned and
// pruned the nights' reports against it still read the counts stored at completion.

const TASKS = 12;
const work = mkdtempSync(join(tmpdir(), "assay-baseline-"));
const db = join(work, "store");
const assay = (...args: string[]) => assayInProcess([...args, "--db", db], { cwd: work });

async function night(n: number): Promise<void> {
  const run = await assay(...nightlyRunArgs(work, n, TASKS));
  expect(run.code, run.stderr).toBe(ExitCode.ok);
}

beforeAll(async () => {
  writeFileSync(
    join(work, "spec.yaml"),
    "name: nightly\ndefault:\n  scorers: [{ name: exact }, { name: f1 }]\nselection: { verifier: f1 }\n",
  );
  await night(1);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay baseline on the embedded store", () => {
  it("compares later nights with the pinned run at completion, read back even after it is pruned", async () => {
    expect((await assay("baseline")).stdout).toContain("No run is pinned as a baseline");
    const pinned = await assay("baseline", "night-1");
    expect(pinned.code, pinned.stderr).toBe(ExitCode.ok);
    expect(pinned.stdout).toContain('Pinned night-1 as the baseline of "nightly"');
    expect((await assay("baseline")).stdout).toMatch(/^nightly: night-1 \(pinned \d{4}-/);
    await night(2);
    await night(3);
    const againstRelease = await assay("report", "night-3", "--compare", "night-1", "--json");
    expect(againstRelease.code, againstRelease.stderr).toBe(ExitCode.ok);
    const comparison = JSON.parse(againstRelease.stdout).comparison;
    expect(comparison.baselineRunId).toBe("night-1");
    expect(comparison.differences.map((d: { metric: string }) => d.metric)).toContain("f1");

    // Prune keeps the pinned run, and says why.
    const pruned = await assay("prune", "--keep-last", "1");
    expect(pruned.code, pruned.stderr).toBe(ExitCode.ok);
    expect(pruned.stdout).toContain("Pruned 1 run");
    expect(pruned.stderr).toContain("kept night-1: it is a pinned baseline");
    // Named by id too, until it is unpinned.
    const named = await assay("prune", "--run", "night-1");
    expect(named.stdout).toContain("Nothing to prune");
    expect(named.stderr).toContain("`assay baseline night-1 --unpin` first to prune it");
    const unpinned = await assay("baseline", "night-1", "--unpin");
    expect(unpinned.stdout).toContain('Unpinned night-1: runs of "nightly"');
    expect((await assay("prune", "--run", "night-1")).stdout).toContain("Pruned 1 run");

    // Both runs' raw rows gone or not, a comparison counted at completion reads the same.
    const afterPrune = await assay("report", "night-3", "--compare", "night-1", "--json");
    expect(afterPrune.code, afterPrune.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(afterPrune.stdout).comparison).toEqual(comparison);
    // night-2 was counted against night-1, the run before it; a pair nobody counted (an
    // older run against a newer one) still needs the pruned runs' raw rows.
    const previous = await assay("report", "night-2", "--compare", "night-1");
    expect(previous.code, previous.stderr).toBe(ExitCode.ok);
    const uncounted = await assay("report", "night-1", "--compare", "night-2");
    expect(uncounted.code).toBe(ExitCode.refused);
    expect(uncounted.stderr).toContain(
      'Run "night-1" cannot be compared: its raw rows were pruned',
    );
  });

  it("refuses a run that cannot be a baseline, saying why", async () => {
    // A spec without a name.
    writeFileSync(join(work, "unnamed.yaml"), "default:\n  scorers: [{ name: exact }]\n");
    const unnamed = await assay(
      "run",
      writeNightlyDataset(work, 9, 2),
      "--spec",
      "unnamed.yaml",
      "--run-id",
      "adhoc",
      "--quiet",
    );
    expect(unnamed.code, unnamed.stderr).toBe(ExitCode.ok);
    const refusals: [string, RegExp][] = [
      ["nope", /No run "nope"/],
      ["night-2", /Run night-2 was pruned: its tasks are gone/],
      ["adhoc", /Run adhoc has no name \(its spec sets no `name`\)/],
    ];
    for (const [run, why] of refusals) {
      const refused = await assay("baseline", run);
      expect(refused.code, run).toBe(ExitCode.refused);
      expect(refused.stderr).toMatch(why);
    }
    const unpinWhat = await assay("baseline", "--unpin");
    expect(unpinWhat.code).toBe(ExitCode.usage);
    expect(unpinWhat.stderr).toContain("--unpin needs the run to unpin");
  });
});
