import { resolve } from "node:path";
import { DEFAULT_MAX_LINE_BYTES } from "@assay/core/input-formats";
import { expect, test } from "vitest";
import { resumeWords } from "../src/resume-words.js";

// `assay run` and `assay produce` print the command that resumes them from this one list:
// each repeats what the run was read with, its files as absolute paths.
test("the resume line repeats the dataset, spec, format, answers and a non-default line limit", () => {
  const flags = {
    spec: "spec.yaml",
    format: "csv" as const,
    answers: ["out-1.jsonl", "out-2.jsonl"],
    answersFormat: "openai-batch" as const,
    answersIdPrefix: "night-",
    maxLineBytes: 4096,
  };
  expect(resumeWords("data.csv", "r1", flags, ["--db", "./store"])).toEqual([
    resolve("data.csv"),
    "--run-id",
    "r1",
    "--spec",
    resolve("spec.yaml"),
    "--format",
    "csv",
    "--db",
    "./store",
    "--answers",
    resolve("out-1.jsonl"),
    "--answers",
    resolve("out-2.jsonl"),
    "--answers-format",
    "openai-batch",
    "--answers-id-prefix",
    "night-",
    "--max-line-bytes",
    "4096",
  ]);
  expect(resumeWords("-", "r2", { maxLineBytes: DEFAULT_MAX_LINE_BYTES })).toEqual([
    "-",
    "--run-id",
    "r2",
  ]);
});
