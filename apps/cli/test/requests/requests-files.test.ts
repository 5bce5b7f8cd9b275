import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/exit-codes.js";
import { requestLines } from "./fake-provider.js";

// What `assay requests` writes without a provider: files split at the limits, unsendable
// rows refused with file, line and field, and `--estimate`'s figures.

const work = mkdtempSync(join(tmpdir(), "assay-requests-files-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const rows = [
  { id: "a1", question: "short question one" },
  { id: "a2", question: "   " },
  { id: "a3", question: "x".repeat(600) },
  { id: "a4", question: "short question four" },
  { id: "a5", question: "short question five", metadata: { topic: "maths" } },
  { id: "a1", question: "a second a1" },
  { id: "a7", question: "short question seven" },
];
const dataset = join(work, "reference.jsonl");
writeFileSync(dataset, rows.map((row) => JSON.stringify(row)).join("\n"));

describe("assay requests", () => {
  it("splits at --max-file-requests/--max-file-bytes and refuses what cannot be sent, by line and field", async () => {
    const out = join(work, "vllm");
    const result = await assayInProcess([
      "requests",
      dataset,
      "--api",
      "vllm",
      "--model",
      "m",
      "--max-tokens",
      "8",
      "--samples",
      "3",
      "--out",
      out,
      "--max-file-requests",
      "2",
      "--max-file-bytes",
      "500",
    ]);
    expect(result.code, result.stderr).toBe(ExitCode.inputErrors);
    expect(result.stderr).toContain(`${dataset}:2: field \`question\`: the prompt is empty`);
    expect(result.stderr).toMatch(
      new RegExp(
        `${dataset}:3: field \`question\`: the request is \\d+ bytes, more than a vllm file may hold \\(500\\)`,
      ),
    );
    const names = readdirSync(out).sort();
    const files = names.map((name) => join(out, name));
    // Two requests a file: the second a1 lands in another file than the first, so no file
    // holds a custom id twice (a duplicate across files is counted by the join).
    const ids = files.map((file) => requestLines(file).map((line) => line.custom_id));
    for (const file of files) expect(statSync(file).size).toBeLessThanOrEqual(500);
    expect(
      ids.every((inFile) => inFile.length <= 2 && new Set(inFile).size === inFile.length),
    ).toBe(true);
    expect(ids).toEqual([["a1", "a4"], ["a5", "a1"], ["a7"]]);
    expect(names[0]).toBe("vllm-0001.jsonl");
    const first = JSON.parse(readFileSync(files[0] as string, "utf8").split("\n")[0] as string);
    expect(first).toEqual({
      custom_id: "a1",
      method: "POST",
      url: "/v1/chat/completions",
      body: {
        model: "m",
        messages: [{ role: "user", content: "short question one" }],
        max_tokens: 8,
        n: 3,
      },
    });
    // A second call into the same folder would mix stale files with new ones: refused.
    const again = await assayInProcess([
      "requests",
      dataset,
      "--api",
      "vllm",
      "--model",
      "m",
      "--out",
      out,
    ]);
    expect(again.code).toBe(ExitCode.refused);
    expect(again.stderr).toContain("already holds vllm-0001.jsonl");
  });

  it("--estimate counts prompt tokens, bounds output and prices both, writing nothing", async () => {
    const prices = join(work, "prices.yaml");
    writeFileSync(prices, "models:\n  m: { input_per_million: 2, output_per_million: 10 }\n");
    const result = await assayInProcess([
      "requests",
      dataset,
      "--api",
      "anthropic-batch",
      "--model",
      "m",
      "--max-tokens",
      "100",
      "--samples",
      "2",
      "--template",
      "{question}",
      "--estimate",
      "--prices",
      prices,
      "--json",
      "--out",
      join(work, "never"),
    ]);
    expect(result.code, result.stderr).toBe(ExitCode.inputErrors);
    const estimate = JSON.parse(result.stdout);
    // Sent: a1, a3, a4, a5, a1 again, a7 (estimate does not split files), two requests each.
    const sent = [rows[0], rows[2], rows[3], rows[4], rows[5], rows[6]].map(
      (row) => row?.question as string,
    );
    const tokens = sent.reduce((total, text) => total + 2 * Math.ceil(text.length / 4), 0);
    expect(estimate).toMatchObject({
      rows: 6,
      requests: 12,
      inputTokens: tokens,
      maxOutputTokens: 6 * 2 * 100,
    });
    expect(estimate.cost.inputCost).toBeCloseTo((tokens * 2) / 1e6, 12);
    expect(estimate.cost.maxOutputCost).toBeCloseTo((1200 * 10) / 1e6, 12);
    expect(estimate.approximation.tokenizer).toBe("o200k_base");
    expect(estimate.approximation.sampled).toBe(6);
    expect(() => readdirSync(join(work, "never"))).toThrow();
  });
});
