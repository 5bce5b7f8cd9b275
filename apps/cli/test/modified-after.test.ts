import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { modifiedAfter } from "../src/modified-after.js";

// `assay show` warns, and `assay retry` refuses to plan, when a run's dataset was modified
// after the run started. A file written just before the run must never count as modified.

const work = mkdtempSync(join(tmpdir(), "assay-modified-after-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const file = join(work, "rows.jsonl");

describe("modifiedAfter", () => {
  it("a file written before the run started is not modified, even in the same millisecond", () => {
    // Stats.mtime rounds to the nearest millisecond: about half of these writes read as
    // later than a clock read after them when compared through it.
    const flagged: number[] = [];
    for (let i = 0; i < 2000; i += 1) {
      writeFileSync(file, `${i}\n`);
      const started = new Date(Date.now());
      if (modifiedAfter(statSync(file), started.toISOString())) flagged.push(i);
    }
    expect(flagged).toEqual([]);
  });

  it("a file touched a second after the run started is modified; one touched at its start is not", () => {
    writeFileSync(file, "x\n");
    const started = new Date("2026-12-07T06:00:00.000Z");
    utimesSync(file, started, new Date(started.getTime() + 1000));
    expect(modifiedAfter(statSync(file), started)).toBe(true);
    utimesSync(file, started, started);
    expect(modifiedAfter(statSync(file), started)).toBe(false);
  });
});
