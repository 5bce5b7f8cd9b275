import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAssay } from "@assay/test-support/run-assay";
import { mountTmpfs, resizeTmpfs, unmountTmpfs } from "@assay/test-support/tmpfs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `--out` on a disk that fills mid-write: the file Assay leaves must be whole or absent,
// and the failure must say the disk is full. A real tmpfs of a few pages is the disk.
const work = mkdtempSync(join(tmpdir(), "assay-full-disk-out-"));
const store = join(work, "store");
const disk = join(work, "disk");
const notMounted = mountTmpfs(disk, "8k");
if (notMounted !== undefined) console.warn(`full-disk --out tests skipped: ${notMounted}`);

beforeAll(async () => {
  const lines = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify({ id: `s${i}`, question: `Q${i}?`, answer: "a fox", target: ["a fox"] }),
  );
  writeFileSync(join(work, "data.jsonl"), `${lines.join("\n")}\n`);
  writeFileSync(join(work, "spec.yaml"), "default:\n  scorers: [{ name: f1 }]\n");
  const run = await runAssay(
    ["run", "data.jsonl", "--spec", "spec.yaml", "--run-id", "r", "--db", store, "--quiet"],
    { cwd: work },
  );
  expect(run.code, run.stderr).toBe(ExitCode.ok);
});
afterAll(() => {
  unmountTmpfs(disk);
  rmSync(work, { recursive: true, force: true });
});

// The earlier target file takes one 4 KiB page; the rest is the room the new file has.
// The JSON report is smaller than a page, so its disk has no room at all.
const commands: [string, string[], string][] = [
  ["report --format html", ["report", "r", "--format", "html"], "8k"],
  ["report --json", ["report", "r", "--json"], "4k"],
  ["export --format csv", ["export", "r", "--format", "csv"], "8k"],
  ["export --format jsonl", ["export", "r", "--format", "jsonl"], "8k"],
];

describe.skipIf(notMounted !== undefined)("--out on a full disk", () => {
  it.each(commands)(
    "%s: says the disk is full, exits 5, and leaves the earlier file as it was",
    async (_name, args, size) => {
      for (const name of readdirSync(disk)) rmSync(join(disk, name), { force: true });
      resizeTmpfs(disk, size);
      const room = Number.parseInt(size, 10) * 1024 - 4096;
      const whole = join(work, "whole.out");
      const complete = await runAssay([...args, "--db", store, "--out", whole], { cwd: work });
      expect(complete.code, complete.stderr).toBe(ExitCode.ok);
      const target = join(disk, "target.out");
      writeFileSync(target, "the earlier file\n");

      const full = await runAssay([...args, "--db", store, "--out", target], { cwd: work });
      // The fault hit: the whole output is larger than the disk, and the write ran out.
      expect(statSync(whole).size).toBeGreaterThan(room);
      expect(full.stderr).toContain(`could not write ${target}: the disk is full`);
      expect(full.code).toBe(ExitCode.unavailable);
      // Nothing partial: the earlier file is untouched and no temporary file is left.
      expect(readFileSync(target, "utf8")).toBe("the earlier file\n");
      expect(readdirSync(disk)).toEqual(["target.out"]);

      // Once there is room, the same command writes the whole file in place.
      resizeTmpfs(disk, "8m");
      const again = await runAssay([...args, "--db", store, "--out", target], { cwd: work });
      expect(again.code, again.stderr).toBe(ExitCode.ok);
      const expected = readFileSync(whole, "utf8").replace(/finished \S+/g, "");
      const written = readFileSync(target, "utf8").replace(/finished \S+/g, "");
      expect(written.length).toBe(expected.length);
      expect(existsSync(target)).toBe(true);
    },
  );
});
