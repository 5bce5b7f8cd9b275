import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAssay } from "@assay/test-support/run-assay";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// PGlite is one Postgres per process: two processes on one store folder overwrite each
// other's files. These tests start real `assay` processes on one store at once.
const SAMPLES = 20_000;
const work = mkdtempSync(join(tmpdir(), "assay-store-lock-"));
const store = join(work, "store");
const dataset = join(work, "data.jsonl");
const spec = join(work, "spec.yaml");
const lines = Array.from({ length: SAMPLES }, (_, i) =>
  JSON.stringify({ id: `s${i}`, question: `Q${i}?`, answer: "a fox", target: ["a fox"] }),
);
writeFileSync(dataset, `${lines.join("\n")}\n`);
writeFileSync(spec, "default:\n  scorers: [{ name: f1 }]\n");
afterAll(() => rmSync(work, { recursive: true, force: true }));

type OnStderr = (text: string, child: ChildProcess) => void;

const run = (runId: string, onStderr?: OnStderr) =>
  runAssay(["run", dataset, "--spec", spec, "--run-id", runId, "--db", store], {
    cwd: work,
    ...(onStderr !== undefined && { onStderr }),
  });

/** Starts `assay run` and resolves once it has opened the store (and so holds it). */
function runHoldingStore(runId: string) {
  let opened: (pid: number) => void = () => {};
  const holding = new Promise<number>((resolve) => {
    opened = resolve;
  });
  const done = run(runId, (text, child) => {
    if (text.includes(`Run ${runId} (`) || text.includes(`Resuming run ${runId} (`)) {
      opened(child.pid ?? 0);
    }
  });
  return { holding, done };
}

/** The sample ids of a run's exported score rows. */
async function exportedIds(runId: string): Promise<string[]> {
  const out = await runAssay(["export", runId, "--db", store, "--format", "jsonl"], { cwd: work });
  expect(out.code, out.stderr).toBe(ExitCode.ok);
  return out.stdout
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { sample_id: string }).sample_id);
}

function expectEveryLineOnce(ids: string[]): void {
  expect(ids.length).toBe(SAMPLES);
  expect(new Set(ids).size).toBe(SAMPLES);
}

describe("two processes on one embedded store", () => {
  it("refuses a second run while the first holds the store, and loses nothing", async () => {
    const first = runHoldingStore("first");
    const holderPid = await first.holding;
    // Paused, the first run holds the store however fast this machine is today.
    process.kill(holderPid, "SIGSTOP");
    const second = await run("second").finally(() => process.kill(holderPid, "SIGCONT"));
    const firstDone = await first.done;

    // The fault hit: the second run started while the first held the store.
    expect(second.stderr).toContain(`in use by \`assay run\` (pid ${holderPid}`);
    expect(second.code).toBe(ExitCode.unavailable);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stdout).toBe("");
    expect(firstDone.code, firstDone.stderr).toBe(ExitCode.ok);
    expectEveryLineOnce(await exportedIds("first"));
    // The refused run registered nothing.
    const report = await runAssay(["report", "second", "--db", store], { cwd: work });
    expect(report.code).toBe(ExitCode.refused);
  }, 600_000);

  it("makes a report wait for a run that holds the store, then read it whole", async () => {
    const holder = runHoldingStore("waited-for");
    const holderPid = await holder.holding;
    process.kill(holderPid, "SIGSTOP");
    const report = runAssay(["report", "first", "--db", store, "--json"], {
      cwd: work,
      env: { ASSAY_STORE_WAIT: "600" },
      // The run goes on only once the report has found the store held.
      onStderr: (text) => {
        if (text.includes("Waiting for the embedded store")) process.kill(holderPid, "SIGCONT");
      },
    });
    // Should the report never wait, the run must not stay paused.
    const resume = () => {
      try {
        process.kill(holderPid, "SIGCONT");
      } catch {}
    };
    const [read, held] = await Promise.all([report.finally(resume), holder.done]);

    expect(read.stderr).toContain("Waiting for the embedded store");
    expect(read.code, read.stderr).toBe(ExitCode.ok);
    expect(held.code, held.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(read.stdout).results).toBe(SAMPLES);
  }, 600_000);

  it("refuses a report once it has waited ASSAY_STORE_WAIT seconds for the store", async () => {
    const holder = runHoldingStore("outwaited");
    const holderPid = await holder.holding;
    process.kill(holderPid, "SIGSTOP");
    const report = await runAssay(["report", "first", "--db", store], {
      cwd: work,
      env: { ASSAY_STORE_WAIT: "2" },
    }).finally(() => process.kill(holderPid, "SIGCONT"));
    const held = await holder.done;

    expect(report.stderr).toContain("Waiting for the embedded store");
    expect(report.stderr).toContain(`in use by \`assay run\` (pid ${holderPid}`);
    expect(report.stderr).toContain("(waited 2 s)");
    expect(report.code).toBe(ExitCode.unavailable);
    expect(report.stdout).toBe("");
    expect(held.code, held.stderr).toBe(ExitCode.ok);
    expectEveryLineOnce(await exportedIds("outwaited"));
  }, 600_000);

  it("takes over the lock of a run killed with SIGKILL, and the run resumes whole", async () => {
    const killed = runHoldingStore("killed");
    const pid = await killed.holding;
    process.kill(pid, "SIGKILL");
    const gone = await killed.done;
    // The fault hit: the run died holding the store, its lock file left behind.
    expect(gone.code).not.toBe(0);
    expect(existsSync(`${store}.lock`)).toBe(true);

    const resumed = await run("killed");
    expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
    expect(existsSync(`${store}.lock`)).toBe(false);
    expectEveryLineOnce(await exportedIds("killed"));
  }, 600_000);
});
