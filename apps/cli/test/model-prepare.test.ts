import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

const work = mkdtempSync(join(tmpdir(), "assay-cli-prepare-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay model prepare", () => {
  it("makes a full-vocabulary export, prepares it, and model check compares the two", async () => {
    const original = join(work, "export");
    const prepared = join(work, "prepared");
    const made = await assayInProcess([
      "model",
      "make-tiny",
      original,
      "--full-vocab",
      "--external-data",
    ]);
    expect(made.code, made.stderr).toBe(ExitCode.ok);
    expect(made.stderr).toMatch(/distribution head, full-vocabulary logits/);

    const prepare = await assayInProcess(["model", "prepare", original, "--out", prepared]);
    expect(prepare.code, prepare.stderr).toBe(ExitCode.ok);
    expect(prepare.stderr).toMatch(/inputs added: score_position, score_token_ids/);
    expect(prepare.stderr).toMatch(/external data kept: model\.onnx_data \(hard-linked\)/);
    const data = (dir: string) => statSync(join(dir, "onnx", "model.onnx_data")).ino;
    expect(data(prepared)).toBe(data(original));

    const check = await assayInProcess([
      "model",
      "check",
      prepared,
      "--original",
      original,
      "--lengths",
      "60",
    ]);
    expect(check.code, check.stderr).toBe(ExitCode.ok);
    expect(check.stdout).toMatch(/Prepared .* vs original .* \(same inputs\)/);
    // One row: 60 question tokens, pass, ~130 positions × 151,669 logits vs 20 log-probabilities.
    expect(check.stdout).toMatch(/│ 60 +│ pass +│ [\d.]+ MB +│ 80 B +│ max \|Δ\|/);
  });

  it("refuses an option value it does not know, and a folder without a model", async () => {
    const heads = await assayInProcess([
      "model",
      "prepare",
      work,
      "--out",
      work,
      "--heads",
      "logits",
    ]);
    expect(heads.code).toBe(ExitCode.usage);
    expect(heads.stderr).toMatch(/--heads to be distribution, probe or distribution,probe/);
    const missing = await assayInProcess(["model", "prepare", work, "--out", join(work, "x")]);
    expect(missing.code).toBe(ExitCode.unavailable);
    expect(missing.stderr).toMatch(/config\.json: missing/);
  });
});
