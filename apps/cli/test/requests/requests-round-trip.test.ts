import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/exit-codes.js";
import {
  anthropicOutput,
  openaiOutput,
  promptOf,
  type Reply,
  requestLines,
} from "./fake-provider.js";

// `assay requests` → a provider's batch (a fake that writes its documented output) →
// `assay run --answers` → `assay report`: the cost per solved task equals the one computed
// by hand from the fake's token counts and the price table.

const work = mkdtempSync(join(tmpdir(), "assay-requests-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

// The team's own column names, mapped by the spec's `fields` as `assay run` maps them.
const reference = write(
  "reference.jsonl",
  [
    { row_id: "t1", prompt: "2+2?", key: "4" },
    { row_id: "t2", prompt: "Capital of France?", key: "Paris" },
    { row_id: "t3", prompt: "3+3?", key: "6" },
    { row_id: "t4", prompt: "Colour of the sky?", key: "blue" },
  ]
    .map((row) => JSON.stringify(row))
    .join("\n"),
);
const spec = write(
  "spec.yaml",
  "fields: { id: row_id, question: prompt, target: key }\ndefault:\n  scorers: [{ name: includes }]\n",
);
// One embedded store for every case (each its own run): creating one costs seconds.
const db = join(work, "store");
const prices = write(
  "prices.yaml",
  [
    "currency: USD",
    "models:",
    "  gpt-4o-mini: { input_per_million: 0.15, cached_input_per_million: 0.075, output_per_million: 0.6 }",
    "  claude-haiku-4-5: { input_per_million: 1, cached_input_per_million: 0.1, cache_write_per_million: 1.25, output_per_million: 5 }",
  ].join("\n"),
);

// The first answer to t1 is right and to t2 wrong (its second is right): only t1 is solved.
const ANSWERS: Record<string, [string, string]> = {
  "Q: 2+2?": ["4", "5"],
  "Q: Capital of France?": ["Lyon", "Paris"],
};

function reply(model: string, usage: Reply["usage"]): Reply {
  return {
    model,
    failed: { t3: "errored", t4: "expired" },
    answerTo: (prompt, sample) => {
      const answers = ANSWERS[prompt];
      if (answers === undefined)
        throw new Error(`the fake was sent an unexpected prompt: ${prompt}`);
      return answers[sample] as string;
    },
    usage,
  };
}

const CASES = [
  {
    api: "openai-chat",
    model: "gpt-4o-mini",
    // One request per row with n = 2; OpenAI counts cached tokens inside prompt_tokens.
    output: (files: string[]) =>
      openaiOutput(
        files,
        reply("gpt-4o-mini", (id) => ({
          input: 100,
          cached: id === "t1" ? 40 : 0,
          writes: 0,
          output: 10,
        })),
      ),
    failed: 2,
    // t1: 60 uncached × 0.15 + 40 cached × 0.075 + 2 × 10 output × 0.6; t2: 100 × 0.15 + 20 × 0.6.
    cost: (60 * 0.15 + 40 * 0.075 + 20 * 0.6 + (100 * 0.15 + 20 * 0.6)) / 1e6,
  },
  {
    api: "openai-responses",
    model: "gpt-4o-mini",
    // No `n` on the Responses API: two requests per row, t1__s0 and t1__s1.
    output: (files: string[]) =>
      openaiOutput(
        files,
        reply("gpt-4o-mini", (id) => ({
          input: 100,
          cached: id === "t1" ? 40 : 0,
          writes: 0,
          output: 10,
        })),
      ),
    failed: 4,
    cost: (2 * (60 * 0.15 + 40 * 0.075 + 10 * 0.6) + 2 * (100 * 0.15 + 10 * 0.6)) / 1e6,
  },
  {
    api: "anthropic-batch",
    model: "claude-haiku-4-5",
    // Anthropic counts cache reads and writes outside input_tokens; t1__s0 writes the cache.
    output: (files: string[]) =>
      anthropicOutput(
        files,
        reply("claude-haiku-4-5", (id, sample) =>
          id === "t1"
            ? { input: 60, cached: 40, writes: sample === 0 ? 20 : 0, output: 10 }
            : { input: 100, cached: 0, writes: 0, output: 10 },
        ),
      ),
    failed: 4,
    cost: (2 * (60 * 1 + 40 * 0.1 + 10 * 5) + 20 * 1.25 + 2 * (100 * 1 + 10 * 5)) / 1e6,
  },
] as const;

describe("assay requests → batch → run --answers → report", () => {
  it.each(CASES)(
    "$api: cost per solved task equals the hand computation",
    async ({ api, model, output, failed, cost }) => {
      const out = join(work, api);
      const written = await assayInProcess([
        "requests",
        reference,
        "--spec",
        spec,
        "--api",
        api,
        "--model",
        model,
        "--system",
        "Answer briefly.",
        "--template",
        "Q: {question}",
        "--max-tokens",
        "16",
        "--samples",
        "2",
        "--out",
        out,
        "--json",
      ]);
      expect(written.code, written.stderr).toBe(ExitCode.ok);
      const files = readdirSync(out).map((name) => join(out, name));
      const requests = files.flatMap(requestLines);
      // Every prompt the fake reads is the template filled from the mapped column.
      expect(new Set(requests.map(promptOf))).toEqual(
        new Set(["Q: 2+2?", "Q: Capital of France?", "Q: 3+3?", "Q: Colour of the sky?"]),
      );
      const answers = write(`${api}-output.jsonl`, output(files));
      const run = await assayInProcess([
        "run",
        reference,
        "--spec",
        spec,
        "--answers",
        answers,
        "--answers-format",
        JSON.parse(written.stdout).answersFormat,
        "--run-id",
        api,
        "--db",
        db,
        "--json",
      ]);
      // Exit 4: t3 errored and t4 expired, each an input error; the rest joined with no flag.
      expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
      expect(JSON.parse(run.stdout).answers).toEqual({
        joined: 2,
        missingAnswers: 2,
        unmatchedAnswers: 0,
        failedRequests: failed,
        duplicateAnswers: 0,
        retriedFailures: 0,
        unjoined: [],
      });
      const report = await assayInProcess([
        "report",
        api,
        "--prices",
        prices,
        "--json",
        "--db",
        db,
      ]);
      expect(report.code, report.stderr).toBe(ExitCode.ok);
      const reported = JSON.parse(report.stdout).report.cost;
      expect(reported.solvedTasks).toBe(1);
      expect(reported.perSolvedTask.generation).toBeCloseTo(cost, 12);
    },
  );
});
