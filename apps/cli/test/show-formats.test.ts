import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DEFAULT_SPEC, runLocal } from "@assay/pipeline";
import { renderSampleView } from "@assay/report";
import { defaultRegistry } from "@assay/scorers";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { type Row, toCsv, toJsonl, toParquet } from "@assay/test-support/dataset-renderings";
import { runAssay } from "@assay/test-support/run-assay";
import { openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { sampleView } from "../src/show/sample-view.js";
import { jsonl, OPENAI_OUTPUT, REFERENCE } from "./answers/batch-fixtures.js";

// `assay show` reads a sample back from every dataset a run can read, by the line number
// the run stored, and says plainly when the text cannot be read again.

const work = mkdtempSync(join(tmpdir(), "assay-show-formats-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(name: string, bytes: string | Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

// Row a's question spans three lines with CRLFs inside its quoted cell: row b starts on
// line 5 of the CSV, which is the line the run stores and show must find it at.
const ROWS: Row[] = [
  { id: "a", question: "first\r\nsecond\r\nthird", answer: "4", target: "4" },
  { id: "b", question: "Capital of France?", answer: "Paris", target: "Paris" },
];

describe("assay show reads back every dataset format", () => {
  let handle: TestStore;
  beforeAll(async () => {
    handle = await openTestStore("pglite");
  });
  afterAll(() => handle?.dispose());

  async function run(runId: string, dataset: string, answers?: string) {
    await handle.store.startRun({ id: runId, dataset, spec: DEFAULT_SPEC, transport: "local" });
    await runLocal({
      store: handle.store,
      registry: defaultRegistry(),
      dataset,
      spec: DEFAULT_SPEC,
      runId,
      ...(answers !== undefined && { answers: { files: [answers], format: "openai-batch" } }),
    });
  }

  it("CSV, TSV, Parquet and gzip/zstd files, at the line the run stored", async () => {
    const zstd = execFileSync("zstd", ["-q", "-c"], { input: toJsonl(ROWS) });
    for (const [name, bytes, line] of [
      ["rows.csv", toCsv(ROWS), 5],
      ["rows.tsv", toCsv(ROWS, "\t"), 5],
      ["rows.parquet", toParquet(ROWS), 2],
      ["rows.csv.gz", gzipSync(toCsv(ROWS)), 5],
      ["rows.jsonl.zst", zstd, 2],
    ] as const) {
      const runId = name.replaceAll(".", "-");
      await run(runId, write(name, bytes));
      const view = await sampleView(handle.store, runId, "b");
      expect(view.dataset, name).toMatchObject({
        line,
        status: "ok",
        question: "Capital of France?",
        answer: "Paris",
        target: "Paris",
      });
      const first = await sampleView(handle.store, runId, "a");
      expect(first.dataset.question, name).toBe("first\r\nsecond\r\nthird");
    }
  });

  it("a row whose answer was joined from batch outputs: its question, and the joined answer's own text", async () => {
    const reference = write("reference.jsonl", jsonl(REFERENCE));
    const output = write("output.jsonl", jsonl(OPENAI_OUTPUT));
    await run("joined", reference, output);
    const view = await sampleView(handle.store, "joined", "q1");
    expect(view.dataset).toMatchObject({
      status: "ok",
      question: "Capital of France?",
      target: "paris",
      // The first q1 line is the answer scored; a later q1 line is a duplicate.
      answer: "Paris",
      answerNote: `joined from ${output}, line 1 (custom id "q1")`,
    });
    expect(view.sample.scores.length).toBeGreaterThan(0);
    // q2's line had two choices: candidate 1 is the second.
    const second = await sampleView(handle.store, "joined", "q2#1");
    expect(second.dataset).toMatchObject({ answer: "rome", question: "Capital of Italy?" });
    expect(renderSampleView(second)).toContain(
      `Answer, joined from ${output}, line 2 (custom id "q2")\n  rome`,
    );
  });

  it("joined repeats under an id prefix: each candidate's own reply, and why one had no text", async () => {
    const reference = write("repeat-reference.jsonl", jsonl(REFERENCE.slice(0, 1)));
    const line = (customId: string, message: object) => ({
      custom_id: customId,
      response: {
        status_code: 200,
        body: {
          model: "gpt-x",
          choices: [{ index: 0, message, finish_reason: "stop" }],
          usage: { prompt_tokens: 5, completion_tokens: 1 },
        },
      },
      error: null,
    });
    const output = write(
      "repeats.jsonl",
      jsonl([
        line("task-q1__s1", { role: "assistant", content: null, refusal: "No." }),
        line("task-q1__s0", { role: "assistant", content: "Paris", refusal: null }),
      ]),
    );
    const runId = "joined-repeats";
    await handle.store.startRun({
      id: runId,
      dataset: reference,
      spec: DEFAULT_SPEC,
      transport: "local",
    });
    await runLocal({
      store: handle.store,
      registry: defaultRegistry(),
      dataset: reference,
      spec: DEFAULT_SPEC,
      runId,
      answers: { files: [output], format: "openai-batch", idPrefix: "task-" },
    });
    expect((await sampleView(handle.store, runId, "q1#0")).dataset).toMatchObject({
      answer: "Paris",
      answerNote: `joined from ${output}, line 2 (custom id "task-q1__s0")`,
    });
    const refused = await sampleView(handle.store, runId, "q1#1");
    expect(refused.dataset.answer).toBeUndefined();
    expect(refused.dataset.answerNote).toBe(
      `no text to score (refusal: No.); joined from ${output}, line 1 (custom id "task-q1__s1")`,
    );
  });
});

describe("assay show of a run read from standard input", () => {
  it("says the input cannot be read again, and reads a copy given with --dataset", async () => {
    const db = join(work, "stdin-store");
    const csv = toCsv(ROWS);
    const ran = await runAssay(["run", "-", "--run-id", "s", "--db", db, "--quiet"], {
      stdin: Buffer.from(csv),
    });
    expect(ran.code, ran.stderr).toBe(ExitCode.ok);
    const store = await openStore({ dataDir: db });
    try {
      const view = await sampleView(store, "s", "b");
      expect(view.dataset).toMatchObject({ path: "-", status: "unknown" });
      expect(view.dataset.message).toMatch(
        /standard input, which cannot be read again.*--dataset <file>/,
      );
      expect(view.sample.scores.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    const copy = write("copy.csv", csv);
    const fromCopy = await assayInProcess(["show", "s", "b", "--db", db, "--dataset", copy]);
    expect(fromCopy.code, fromCopy.stderr).toBe(ExitCode.ok);
    expect(fromCopy.stdout).toContain(`dataset   ${copy}, line 5`);
    expect(fromCopy.stdout).toMatch(/Answer\n {2}Paris\n/);
  });
});
