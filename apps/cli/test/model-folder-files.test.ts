import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import type { AssayResult } from "@assay/test-support/run-assay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A model folder may come from anyone: a file its assay.json names outside the folder is
// refused by every command that loads it, and the refusal quotes nothing of that file.
const work = mkdtempSync(join(tmpdir(), "assay-model-files-"));
const dataset = join(work, "data.jsonl");
writeFileSync(dataset, `${JSON.stringify({ id: "a", question: "q", answer: "x" })}\n`);
const SECRET = "TOP-SECRET-c41d not json";
const secretFile = join(work, "secret.txt");
writeFileSync(secretFile, SECRET);
let tiny: string;
beforeAll(async () => {
  tiny = await makeTinyModel(join(work, "tiny"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** One line on stderr, no stack trace, and nothing of the secret anywhere. */
function expectOneCleanLine(result: AssayResult): void {
  expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stdout + result.stderr).not.toContain("TOP-SECRET");
}

describe("a model folder whose assay.json names a file outside it", () => {
  let counter = 0;
  /** A copy of the tiny model with `head.probe` set to `probe`, after `prepare` ran in it. */
  function modelNaming(probe: string, prepare: (dir: string) => void = () => {}): string {
    counter += 1;
    const dir = join(work, `model-${counter}`);
    cpSync(tiny, dir, { recursive: true });
    prepare(dir);
    const file = join(dir, "assay.json");
    const config = JSON.parse(readFileSync(file, "utf8")) as { head: { probe: unknown } };
    config.head.probe = probe;
    writeFileSync(file, JSON.stringify(config));
    return dir;
  }

  it.each([
    ["a `..` path", () => modelNaming("../secret.txt")],
    ["an absolute path", () => modelNaming(secretFile)],
    [
      "a link leading out",
      () => modelNaming("probe.json", (d) => symlinkSync(secretFile, join(d, "probe.json"))),
    ],
  ])(
    "is refused with %s by `model check`, `model prepare` and `run` (exit 5), quoting nothing",
    async (_, make) => {
      const dir = make();
      const spec = join(work, `verifier-${counter}.yaml`);
      writeFileSync(
        spec,
        `default:\n  scorers:\n    - { name: verifier, args: { model: ${JSON.stringify(dir)} } }\n`,
      );
      const out = join(work, `prepared-${counter}`);
      for (const args of [
        ["model", "check", dir],
        ["model", "prepare", dir, "--out", out],
        ["run", dataset, "--spec", spec, "--db", join(work, `store-model-${counter}`)],
      ]) {
        const result = await assayInProcess(args);
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(ExitCode.unavailable);
        expect(result.stderr).toContain(`${join(dir, "assay.json")}: field \`head.probe\`: `);
        expectOneCleanLine(result);
      }
      expect(existsSync(out), "model prepare wrote nothing").toBe(false);
    },
  );
});
