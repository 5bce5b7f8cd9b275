import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

const work = mkdtempSync(join(tmpdir(), "assay-cli-probe-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const WORDS = ["the", "river", "stone", "seven", "blue", "under", "garden", "light", "paper"];

/** JSONL of answers labelled by whether they contain "banana"; half as candidates lines. */
function labelledFile(name: string, count: number, seed: number): string {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
  const answer = (label: boolean) => {
    const words = Array.from({ length: 4 + next(6) }, () => WORDS[next(WORDS.length)]);
    if (label) words.splice(next(words.length + 1), 0, "banana");
    return words.join(" ");
  };
  const lines = Array.from({ length: count / 2 }, (_, i) =>
    i % 2 === 0
      ? { id: `q${i}`, question: "Name a fruit.", answer: answer(true), label: true }
      : {
          id: `q${i}`,
          question: "Name a fruit.",
          candidates: [
            { answer: answer(false), label: false },
            { answer: answer(true), label: true },
            { answer: answer(false), label: false },
          ],
        },
  );
  const file = join(work, name);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}

const AUROC = /│\s*\d+\s*│\s*([\d.]+)\s*│\s*([\d.]+)\s*│\s*([\d.]+)\s*│\s*([\d.]+)\s*│/;

describe("assay probe", () => {
  const model = join(work, "encoder");
  beforeAll(async () => {
    const made = await assayInProcess(["model", "make-tiny", model, "--kind", "encoder"]);
    expect(made.code, made.stderr).toBe(ExitCode.ok);
  });

  it("fits a probe that separates held-out answers, writes a model, and eval reads it back", async () => {
    const out = join(work, "fitted");
    const fit = await assayInProcess([
      "probe",
      "fit",
      model,
      labelledFile("train.jsonl", 80, 3),
      "--out",
      out,
    ]);
    expect(fit.code, fit.stderr).toBe(ExitCode.ok);
    expect(fit.stdout).toMatch(/Probe fitted on 80 answers \(40 labelled true\)/);
    expect(fit.stdout).toMatch(/chosen by 5-fold cross-validation \(seed 1\)/);
    const [, auroc, accuracy, brier, ece] = fit.stdout.match(AUROC) ?? [];
    expect(Number(auroc)).toBeGreaterThan(0.75);
    expect(Number(accuracy)).toBeGreaterThan(0.6);
    expect(Number(brier)).toBeLessThan(0.25);
    expect(Number(ece)).toBeLessThan(0.3);
    expect(fit.stderr).toMatch(/onnx: model\.onnx \(hard-linked\)/);
    const config = JSON.parse(readFileSync(join(out, "assay.json"), "utf8"));
    expect(config.head.type).toBe("probe");
    expect(config.head.probe).toHaveLength(32);

    const evaluated = await assayInProcess([
      "probe",
      "eval",
      out,
      labelledFile("fresh.jsonl", 60, 11),
      "--json",
    ]);
    expect(evaluated.code, evaluated.stderr).toBe(ExitCode.ok);
    const figures = JSON.parse(evaluated.stdout);
    expect(figures.head).toBe("probe");
    expect(figures.unscored).toBe(0);
    expect(figures.summary.count).toBe(60);
    expect(figures.summary.auroc).toBeGreaterThan(0.75);
  });

  it("refuses answers without a label, a single label, and one fold", async () => {
    const unlabelled = join(work, "unlabelled.jsonl");
    writeFileSync(
      unlabelled,
      `${JSON.stringify({ id: "a", question: "q", answer: "x", label: true })}\n${JSON.stringify({ id: "b", question: "q", answer: "y" })}\n`,
    );
    const missing = await assayInProcess([
      "probe",
      "fit",
      model,
      unlabelled,
      "--out",
      join(work, "x"),
    ]);
    expect(missing.code).toBe(ExitCode.refused);
    expect(missing.stderr).toMatch(/unlabelled\.jsonl:2.*label.*expected true or false/);

    const single = join(work, "single.jsonl");
    writeFileSync(
      single,
      `${JSON.stringify({ id: "a", question: "q", answer: "x", label: true })}\n`,
    );
    const one = await assayInProcess(["probe", "eval", model, single]);
    expect(one.code).toBe(ExitCode.refused);
    expect(one.stderr).toMatch(
      /all 1 answers are labelled true; a probe needs answers of both labels/,
    );

    const folds = await assayInProcess([
      "probe",
      "fit",
      model,
      single,
      "--out",
      work,
      "--folds",
      "1",
    ]);
    expect(folds.code).toBe(ExitCode.usage);
    expect(folds.stderr).toMatch(/--folds to be an integer from 2 and up/);
  });
});
