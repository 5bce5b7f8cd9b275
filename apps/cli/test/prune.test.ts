import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { nightlyRunArgs } from "@assay/test-support/nightly-dataset";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay prune` on the embedded store: three nightly runs, the oldest two pruned by
// --keep-last; their reports and the trend read the same afterwards, and everything that
// would read their raw rows refuses them, saying when they were pruned.

const TASKS = 30;
const work = mkdtempSync(join(tmpdir(), "assay-prune-"));
const db = join(work, "store");
const nights = [1, 2, 3];

const assay = (...args: string[]) => assayInProcess([...args, "--db", db], { cwd: work });
const reports = new Map<number, string>();
let slicedBeforePrune = "";

beforeAll(async () => {
  writeFileSync(
    join(work, "spec.yaml"),
    // `target` declared as a metadata field: its slices are rolled up, and outlive a prune.
    "name: nightly\nfields: { metadata: [target] }\ndefault:\n  scorers: [{ name: exact }, { name: f1 }]\nselection: { verifier: f1 }\n",
  );
  for (const night of nights) {
    const run = await assay(...nightlyRunArgs(work, night, TASKS));
    expect(run.code, run.stderr).toBe(ExitCode.ok);
  }
  for (const night of nights) {
    const report = await assay("report", `night-${night}`, "--json");
    expect(report.code, report.stderr).toBe(ExitCode.ok);
    reports.set(night, report.stdout);
  }
  const sliced = await assay("report", "night-1", "--by", "metadata.target", "--json");
  expect(sliced.code, sliced.stderr).toBe(ExitCode.ok);
  slicedBeforePrune = sliced.stdout;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay prune on the embedded store", () => {
  it("lists what it would drop with --dry-run, and drops nothing", async () => {
    const dry = await assay("prune", "--keep-last", "1", "--dry-run");
    expect(dry.code, dry.stderr).toBe(ExitCode.ok);
    expect(dry.stdout).toMatch(/would prune night-2 \(started .*\): 60 samples, 120 results/);
    expect(dry.stdout).toMatch(/would prune night-1 /);
    expect(dry.stdout).toContain("Would prune 2 runs");
    const exported = await assay("export", "night-1");
    expect(exported.code, exported.stderr).toBe(ExitCode.ok);
  });

  it("drops the raw rows of all but the newest run; reports and the trend read the same", async () => {
    const pruned = await assay("prune", "--keep-last", "1");
    expect(pruned.code, pruned.stderr).toBe(ExitCode.ok);
    expect(pruned.stdout).toContain("Pruned 2 runs");
    expect(pruned.stdout).toContain("their runs rows and rollups remain");
    for (const night of nights) {
      const report = await assay("report", `night-${night}`, "--json");
      expect(report.code, report.stderr).toBe(ExitCode.ok);
      expect(JSON.parse(report.stdout), `night-${night}`).toEqual(
        JSON.parse(reports.get(night) as string),
      );
    }
    // A field the spec declares is sliced from rollups, which a prune keeps.
    const sliced = await assay("report", "night-1", "--by", "metadata.target", "--json");
    expect(sliced.code, sliced.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(sliced.stdout)).toEqual(JSON.parse(slicedBeforePrune));
    expect(sliced.stdout).toContain('"city 29"');
    const again = await assay("prune", "--keep-last", "1");
    expect(again.stdout).toContain("Nothing to prune.");
  });

  it("refuses every path that reads a pruned run's raw rows, exit 3, saying when", async () => {
    const refusals: [string[], string][] = [
      [["export", "night-1"], "exported"],
      [["export", "night-1", "--table", "samples"], "exported"],
      [["show", "night-1", "t1#0"], "shown sample by sample"],
      [
        ["report", "night-1", "--by", "metadata.kind"],
        "reported with --by metadata\\.kind \\(field not declared in fields\\.metadata\\)",
      ],
      [["report", "night-3", "--compare", "night-1"], "compared"],
      [nightlyRunArgs(work, 1, TASKS), "resumed or run again"],
    ];
    for (const [args, what] of refusals) {
      const refused = await assay(...args);
      expect(refused.code, args.join(" ")).toBe(ExitCode.refused);
      expect(refused.stderr).toMatch(
        new RegExp(
          `Run "night-1" cannot be ${what}: its raw rows were pruned on \\d{4}-\\d\\d-\\d\\d`,
        ),
      );
      expect(refused.stderr).toContain("Its rollups remain");
    }
    // The newest run keeps its raw rows.
    const kept = await assay("export", "night-3");
    expect(kept.code, kept.stderr).toBe(ExitCode.ok);
    expect(kept.stdout.trim().split("\n")).toHaveLength(TASKS * 2 * 2);
  });

  it("says how to use it, and refuses a bad duration or no rule as bad usage", async () => {
    const help = await assayInProcess(["prune", "--help"]);
    expect(help.stdout).toContain("assay prune --older-than 90d --dry-run");
    expect(help.stdout).toMatch(/--keep-last <n>/);
    const none = await assay("prune");
    expect(none.code).toBe(ExitCode.usage);
    expect(none.stderr).toContain(
      "needs --older-than <duration>, --keep-last <n>, --abandoned or --run <run-id>",
    );
    for (const bad of ["90", "1.5d", "3 months", "0d"]) {
      const refused = await assay("prune", "--older-than", bad);
      expect(refused.code, bad).toBe(ExitCode.usage);
      expect(refused.stderr).toContain("--older-than takes a whole number from 1 and a unit");
    }
  });
});
