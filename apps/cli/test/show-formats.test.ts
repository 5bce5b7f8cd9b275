import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DEFAULT_SPEC, runLocal } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import { openStore } from "@assay/store";
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

  it("a row whose answer was joined from batch outputs: its question, and where the answer was", async () => {
    const reference = write("reference.jsonl", jsonl(REFERENCE));
    await run("joined", reference, write("output.jsonl", jsonl(OPENAI_OUTPUT)));
    const view = await sampleView(handle.store, "joined", "q1");
    expect(view.dataset).toMatchObject({
      status: "ok",
      question: "Capital of France?",
      target: "paris",
    });
    expect(view.dataset.answer).toBeUndefined();
    expect(view.dataset.answerNote).toMatch(/joined from the batch outputs given with --answers/);
    expect(view.sample.scores.length).toBeGreaterThan(0);
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
    const fromCopy = await runAssay(["show", "s", "b", "--db", db, "--dataset", copy]);
    expect(fromCopy.code, fromCopy.stderr).toBe(ExitCode.ok);
    expect(fromCopy.stdout).toContain(`dataset   ${copy}, line 5`);
    expect(fromCopy.stdout).toMatch(/Answer\n {2}Paris\n/);
  });
});
