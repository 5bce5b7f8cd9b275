import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SPEC, runLocal } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliExit, ExitCode } from "../src/exit-codes.js";
import { sampleView } from "../src/show/sample-view.js";

const work = mkdtempSync(join(tmpdir(), "assay-show-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LINES = [
  {
    id: "t1",
    question: "What is the capital of France?",
    candidates: [
      {
        answer: "Paris",
        label: true,
        generator: { model: "gen-a", input_tokens: 12, output_tokens: 2 },
        steps: ["France's capital is its largest city.", "That city is Paris."],
      },
      { answer: "Lyon", label: false },
    ],
    target: "Paris",
    metadata: { kind: "short" },
  },
  { id: "q2", question: "2 + 2?", answer: "4", target: 4 },
];

function writeDataset(name: string, lines: readonly unknown[] = LINES): string {
  const path = join(work, name);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return path;
}

describe.each(DRIVER_NAMES)("one sample, read back from the dataset (%s)", (driver) => {
  let handle: TestStore;
  let dataset: string;

  beforeAll(async () => {
    handle = await openTestStore(driver);
    dataset = writeDataset(`${driver}.jsonl`);
    await handle.store.startRun({ id: "r", dataset, spec: DEFAULT_SPEC, transport: "local" });
    await runLocal({
      store: handle.store,
      registry: defaultRegistry(),
      dataset,
      spec: DEFAULT_SPEC,
      runId: "r",
    });
  });
  afterAll(() => handle?.dispose());

  it("shows the question, the answer and every score with its rule", async () => {
    const view = await sampleView(handle.store, "r", "t1#0");
    expect(view.dataset).toMatchObject({
      path: dataset,
      line: 1,
      status: "ok",
      message: null,
      question: "What is the capital of France?",
      answer: "Paris",
      target: "Paris",
      steps: ["France's capital is its largest city.", "That city is Paris."],
    });
    expect(view.sample).toMatchObject({
      taskId: "t1",
      candidateIndex: 0,
      label: true,
      line: 1,
      metadata: { kind: "short" },
      generator: { model: "gen-a", inputTokens: 12, outputTokens: 2 },
    });
    expect(view.sample.scores.map((s) => [s.scorer, s.rule, s.status, s.value])).toEqual([
      ["exact", "text-target", "scored", 1],
      ["f1", "text-target", "scored", 1],
    ]);
    const numeric = await sampleView(handle.store, "r", "q2");
    expect(numeric.dataset).toMatchObject({ line: 2, answer: "4", target: 4 });
    expect(numeric.sample.scores.map((s) => [s.scorer, s.rule])).toEqual([
      ["numeric", "numeric-target"],
    ]);
  });

  it("warns when the file was modified after the run started, and still shows it", async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(dataset, later, later);
    const view = await sampleView(handle.store, "r", "t1#1");
    expect(view.dataset.status).toBe("modified");
    expect(view.dataset.message).toMatch(/modified .* after the run started .*may differ/);
    expect(view.dataset.answer).toBe("Lyon");
  });

  it("says when the line no longer holds the sample, and keeps the stored scores", async () => {
    const edited = writeDataset(`${driver}-edited.jsonl`, [{ ...LINES[1], id: "other" }, LINES[0]]);
    const view = await sampleView(handle.store, "r", "t1#1", edited);
    expect(view.dataset).toMatchObject({ status: "changed", line: 1 });
    expect(view.dataset.message).toBe(
      'line 1 now holds "other", not "t1#1": the file changed after the run',
    );
    expect(view.dataset.question).toBeUndefined();
    expect(view.sample.scores).toHaveLength(2);

    const relabelled = writeDataset(`${driver}-relabelled.jsonl`, [
      { ...LINES[0], metadata: { kind: "long" } },
    ]);
    expect((await sampleView(handle.store, "r", "t1#0", relabelled)).dataset.message).toMatch(
      /holds t1#0, but its metadata differs from what was stored/,
    );
    const short = writeDataset(`${driver}-short.jsonl`, [LINES[0]]);
    expect((await sampleView(handle.store, "r", "q2", short)).dataset.message).toMatch(
      /the file has 1 lines; line 2 is gone/,
    );
  });

  it("says when the file is gone, and reads another copy with --dataset", async () => {
    const copy = join(work, `${driver}-copy.jsonl`);
    copyFileSync(dataset, copy);
    rmSync(dataset);
    const gone = await sampleView(handle.store, "r", "t1#0");
    expect(gone.dataset.status).toBe("missing");
    expect(gone.dataset.message).toMatch(/cannot read .*: no such file.*--dataset <file>/);
    expect(gone.sample.scores).toHaveLength(2);
    // A copy made after the run cannot be vouched for: shown, with the warning.
    const fromCopy = await sampleView(handle.store, "r", "t1#0", copy);
    expect(fromCopy.dataset).toMatchObject({ path: copy, status: "modified", answer: "Paris" });
  });

  it("refuses an unknown sample, naming the id format", async () => {
    const attempt = sampleView(handle.store, "r", "t1");
    await expect(attempt).rejects.toBeInstanceOf(CliExit);
    await expect(attempt).rejects.toThrow(/No sample "t1" in run "r".*"<line id>#<index>"/);
  });
});

describe("assay show", () => {
  const db = join(work, "cli-store");
  let dataset: string;

  beforeAll(async () => {
    dataset = writeDataset("cli.jsonl");
    const run = await assayInProcess(["run", dataset, "--run-id", "c", "--db", db, "--quiet"]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
  });

  it("prints the sample, its text and a table of its scores", async () => {
    const { code, stdout } = await assayInProcess(["show", "c", "t1#1", "--db", db]);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toContain("Sample t1#1 of run c (task t1, candidate 1, label false)");
    expect(stdout).toContain(`dataset   ${dataset}, line 1`);
    expect(stdout).toMatch(/Question\n {2}What is the capital of France\?\n\nAnswer\n {2}Lyon\n/);
    expect(stdout).toContain('Target    "Paris"');
    expect(stdout).toMatch(/Scores \(2\)/);
    expect(stdout).toMatch(/exact\s+│ text-target\s+│ scored\s+│\s+0\.0000/);

    const json = await assayInProcess(["show", "c", "t1#0", "--db", db, "--json"]);
    const view = JSON.parse(json.stdout);
    expect(view.dataset.steps).toHaveLength(2);
    expect(view.sample.scores).toHaveLength(2);
  });

  it("still shows the stored scores, with a clear notice, when the dataset is gone", async () => {
    rmSync(dataset);
    const { code, stdout } = await assayInProcess(["show", "c", "t1#1", "--db", db]);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toMatch(/NOT SHOWN: cannot read .*cli\.jsonl: no such file/);
    expect(stdout).not.toContain("Question");
    expect(stdout).toMatch(/f1\s+│ text-target\s+│ scored/);
  });

  it("exits 3 for a sample the run does not have", async () => {
    const { code, stderr } = await assayInProcess(["show", "c", "nope", "--db", db]);
    expect(code).toBe(ExitCode.refused);
    expect(stderr).toContain('No sample "nope" in run "c"');
  });
});
