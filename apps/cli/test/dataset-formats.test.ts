import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { type Row, toCsv, toJsonl, toParquet } from "@assay/test-support/dataset-renderings";
import { runAssay } from "@assay/test-support/run-assay";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// Each format through `assay run` on the embedded store, as a user runs it: what is stored
// must be what the same rows stored from JSONL.
const work = mkdtempSync(join(tmpdir(), "assay-cli-formats-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const rows: Row[] = [
  { id: "a", question: "What, is 2+2?", answer: "4", target: "4", metadata: { kind: "num" } },
  { id: "b", question: 'Say "hi"\nthen stop', answer: "hi", target: ["hi", "hello"], label: true },
  {
    id: "c",
    question: "Pick one",
    candidates: [{ answer: "x" }, { answer: "y", label: false }],
    target: "y",
  },
  { id: "d", question: "Empty answer", answer: "", target: "é😀" },
];

function file(name: string, bytes: string | Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

/** What each named run stored, read through the store opened once. */
async function stored(store: string, runs: string[]) {
  const opened = await openStore({ dataDir: store, create: false });
  try {
    const each = [];
    for (const run of runs) {
      const of = `WHERE run_id = '${run}'`;
      each.push({
        samples: await queryRows(
          opened,
          `SELECT sample_id, task_id, candidate_index, label, metadata FROM samples ${of} ORDER BY sample_id`,
        ),
        scores: await queryRows(
          opened,
          `SELECT sample_id, scorer, criterion, status, detail FROM scores ${of} ORDER BY sample_id, scorer, criterion`,
        ),
        errors: await queryRows(
          opened,
          `SELECT file, line, field FROM input_errors ${of} ORDER BY line`,
        ),
      });
    }
    return each;
  } finally {
    await opened.close();
  }
}

describe("assay run on each dataset format", () => {
  it("stores the same samples and scores from CSV, TSV, Parquet, gzip and stdin as from JSONL", async () => {
    const runs: [string, string[], Uint8Array?][] = [
      ["jsonl", [file("rows.jsonl", toJsonl(rows))]],
      ["csv", [file("rows.csv", toCsv(rows))]],
      ["tsv", [file("rows.tsv", toCsv(rows, "\t"))]],
      ["parquet", [file("rows.parquet", toParquet(rows))]],
      ["gzip", [file("rows.jsonl.gz", gzipSync(toJsonl(rows)))]],
      ["stdin csv", ["-", "--format", "csv"], Buffer.from(toCsv(rows))],
    ];
    // One store, a run per format: each run's rows are compared with the JSONL run's.
    const store = join(work, "store-formats");
    const runIds = runs.map(([name]) => `r-${name.replace(" ", "-")}`);
    for (const [i, [name, args, stdin]] of runs.entries()) {
      const command = ["run", ...args, "--db", store, "--run-id", runIds[i] as string, "--json"];
      // Standard input is a process's: that run has one of its own.
      const run =
        stdin === undefined ? await assayInProcess(command) : await runAssay(command, { stdin });
      expect(run.code, `${name}: ${run.stderr}`).toBe(ExitCode.ok);
      expect(JSON.parse(run.stdout), name).toMatchObject({ samples: 5, inputErrors: 0 });
    }
    const [jsonl, ...others] = await stored(store, runIds);
    expect(jsonl?.scores.length).toBeGreaterThan(0);
    for (const [i, other] of others.entries()) expect(other, runIds[i + 1]).toEqual(jsonl);
  });

  it("names each bad row by file, row and field while the other rows score", async () => {
    const csv = file(
      "bad.csv",
      'id,question,answer,label,target\nok1,q,a,,a\nbad,q,a,maybe,a\nok2,"two\nlines",a,true,a\nnone,q,,,a\n',
    );
    const parquet = file("bad.parquet", toParquet([rows[0] as Row, { id: "x", question: "q" }]));
    const store = join(work, "store-bad");
    for (const [path, samples, errors] of [
      [
        csv,
        2,
        [
          { file: csv, line: 3, field: "label" },
          { file: csv, line: 6, field: "answer" },
        ],
      ],
      [parquet, 1, [{ file: parquet, line: 2, field: "answer" }]],
    ] as const) {
      const runId = `bad-${samples}`;
      const run = await assayInProcess(["run", path, "--db", store, "--run-id", runId, "--json"]);
      expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
      expect(JSON.parse(run.stdout)).toMatchObject({ samples });
      expect((await stored(store, [runId]))[0]?.errors).toEqual(errors);
    }
  });

  it("a truncated gzip file keeps what was read; completed, the same run reads the rest", async () => {
    const many = Array.from({ length: 4000 }, (_, i) => ({
      id: `r${i}`,
      question: `question ${i} ${((i * 2654435761) % 4294967296).toString(36)}`,
      answer: String(i),
      target: String(i),
    }));
    const whole = gzipSync(toJsonl(many));
    const path = file("copying.jsonl.gz", whole.subarray(0, Math.floor(whole.length / 2)));
    const store = join(work, "store-cut");
    const cut = await assayInProcess(["run", path, "--db", store, "--run-id", "cut", "--json"]);
    expect(cut.code, cut.stderr).toBe(ExitCode.inputErrors);
    const read = JSON.parse(cut.stdout).samples as number;
    expect(read).toBeGreaterThan(100);
    expect(read).toBeLessThan(4000);
    expect((await stored(store, ["cut"]))[0]?.errors).toEqual([
      { file: path, line: read + 1, field: "" },
    ]);

    writeFileSync(path, whole);
    const resumed = await assayInProcess(["run", path, "--db", store, "--run-id", "cut", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
    expect(resumed.stderr).toContain("Resuming run cut");
    expect(JSON.parse(resumed.stdout)).toMatchObject({ samples: 4000, inputErrors: 0 });
  });

  it("a corrupt Parquet file is refused with one error, and no run is left behind", async () => {
    const whole = toParquet(rows);
    const path = file("corrupt.parquet", whole.subarray(0, whole.length - 20));
    const run = await assayInProcess(["run", path, "--db", join(work, "store-corrupt"), "-q"]);
    expect(run.code).toBe(ExitCode.refused);
    expect(run.stderr).toMatch(/corrupt\.parquet: not a readable Parquet file .*Nothing was read/);
  });

  it("a wrong --format is one error with the fix, exit 3; an unknown one is a usage error", async () => {
    const parquet = file("fmt.parquet", toParquet(rows));
    const wrong = await assayInProcess(["run", parquet, "--format", "csv", "-q"]);
    expect(wrong.code).toBe(ExitCode.refused);
    expect(wrong.stderr).toContain("this is a Parquet file, not csv; pass --format parquet");
    const unknown = await assayInProcess(["run", parquet, "--format", "xlsx", "-q"]);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toContain("Expected --format to be one of jsonl, csv, tsv, parquet");
  });

  it("stdin resumes with the same bytes and refuses different ones", async () => {
    const store = join(work, "store-stdin");
    const bytes = gzipSync(toJsonl(rows));
    const args = ["run", "-", "--db", store, "--run-id", "piped", "--json"];
    const first = await runAssay(args, { stdin: bytes });
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    const again = await runAssay(args, { stdin: bytes });
    expect(again.code, again.stderr).toBe(ExitCode.ok);
    expect(again.stderr).toContain("Resuming run piped");
    expect(again.stderr).toContain("Skipped");
    const other = gzipSync(toJsonl(rows.map((row) => ({ ...row, question: "changed" }))));
    const changed = await runAssay(args, { stdin: other });
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toMatch(/dataset - changed \(size was \d+ bytes, now \d+\)/);
  });
});
