import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import type { Sample } from "@assay/core";
import { type Row, toCsv, toJsonl, toParquet } from "@assay/test-support/dataset-renderings";
import fc from "fast-check";
import { parquetMetadata } from "hyparquet";
import { afterAll, describe, expect, it } from "vitest";
import { type DatasetEvent, openDataset, readDataset } from "../src/index.js";

const work = mkdtempSync(join(tmpdir(), "assay-formats-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let files = 0;

function write(name: string, bytes: string | Uint8Array): string {
  files += 1;
  const path = join(work, `${files}-${name}`);
  writeFileSync(path, bytes);
  return path;
}

function zstd(bytes: string | Uint8Array): Uint8Array {
  return execFileSync("zstd", ["-q", "-c"], { input: bytes });
}

async function events(path: string, options: Parameters<typeof readDataset>[1] = {}) {
  const out: DatasetEvent[] = [];
  for await (const event of readDataset(path, options)) out.push(event);
  return out;
}

function samplesOf(all: DatasetEvent[]): Sample[] {
  return all.flatMap((event) => (event.kind === "samples" ? event.samples : []));
}

function errorsOf(all: DatasetEvent[]) {
  return all.flatMap((event) =>
    event.kind === "error"
      ? [{ line: event.error.line, field: event.error.field, message: event.error.reason }]
      : [],
  );
}

/** Samples without the line they came from: a CSV row's line depends on its newlines. */
function withoutLines(samples: Sample[]): Omit<Sample, "line">[] {
  return samples.map(({ line: _line, ...rest }) => rest);
}

const rows: Row[] = [
  { id: "a", question: "What, is 2+2?", answer: "4", target: "4", metadata: { kind: "num" } },
  { id: "b", question: 'Say "hi"\nthen stop', answer: "hi", target: ["hi", "hello"], label: true },
  {
    id: "c",
    task_id: "t",
    question: "Pick one",
    candidates: [{ answer: "x" }, { answer: "y", label: false }],
    target: "[y]",
  },
  { id: "d", question: "", answer: "", target: "é😀" },
];

describe("dataset formats", () => {
  it("CSV, TSV, Parquet and gzip/zstd JSONL give the samples JSONL gives", async () => {
    const jsonl = samplesOf(await events(write("rows.jsonl", toJsonl(rows))));
    expect(jsonl.map((sample) => sample.id)).toEqual(["a", "b", "c#0", "c#1", "d"]);
    for (const [name, bytes] of [
      ["rows.csv", toCsv(rows)],
      ["rows.tsv", toCsv(rows, "\t")],
      ["rows.parquet", toParquet(rows, { rowGroupSize: 2 })],
      ["rows-gzip.parquet", toParquet(rows, { codec: "GZIP" })],
      ["rows.csv.gz", gzipSync(toCsv(rows))],
      ["rows.tsv.zst", zstd(toCsv(rows, "\t"))],
    ] as const) {
      const read = await events(write(name, bytes));
      expect(errorsOf(read), name).toEqual([]);
      expect(withoutLines(samplesOf(read)), name).toEqual(withoutLines(jsonl));
    }
    for (const [name, bytes] of [
      ["rows.jsonl.gz", gzipSync(toJsonl(rows))],
      ["renamed.txt", gzipSync(toJsonl(rows))],
      ["rows.jsonl.zst", zstd(toJsonl(rows))],
    ] as const) {
      expect(samplesOf(await events(write(name, bytes))), name).toEqual(jsonl);
    }
  });

  it("a CSV row's number is the line it starts on; a Parquet row's is its place", async () => {
    const csv = samplesOf(await events(write("lines.csv", toCsv(rows))));
    // Header on line 1; row b's question spans lines 3-4.
    expect(csv.map((sample) => sample.line)).toEqual([2, 3, 5, 5, 6]);
    const parquet = samplesOf(await events(write("lines.parquet", toParquet(rows))));
    expect(parquet.map((sample) => sample.line)).toEqual([1, 2, 3, 3, 4]);
  });

  it("bad CSV rows are refused by row and field while the rows around them are read", async () => {
    const csv = [
      "id,question,answer,label,candidates",
      "ok1,q,a,,",
      "bad-label,q,a,yes,",
      'bad-json,q,,,"[{answer: 1}]"',
      "short,q",
      'ok2,"two\nlines",a,true,',
      "missing-answer,q,,,",
      "ok3,q,a,false,",
    ].join("\n");
    const read = await events(write("bad.csv", csv));
    expect(samplesOf(read).map((sample) => [sample.id, sample.line])).toEqual([
      ["ok1", 2],
      ["ok2", 6],
      ["ok3", 9],
    ]);
    expect(errorsOf(read).map(({ line, field }) => [line, field])).toEqual([
      [3, "label"],
      [4, "candidates"],
      [5, ""],
      [8, "answer"],
    ]);
    expect(errorsOf(read)[2]?.message).toContain("expected 5 cells as in the header, got 2");
  });

  it("a CSV row's line counts each CRLF in a quoted cell once, so later rows keep their line", async () => {
    const csv = [
      "id,question,answer",
      'ok1,"first\r\nsecond\r\nthird",a', // lines 2-4
      'ok2,q,"x\r\ny"', // lines 5-6
      "short,q", // line 7
      'ok3,"one\ntwo",a', // lines 8-9
      "missing-answer,q,", // line 10
    ].join("\r\n");
    const read = await events(write("crlf.csv", csv));
    expect(samplesOf(read).map((sample) => [sample.id, sample.line])).toEqual([
      ["ok1", 2],
      ["ok2", 5],
      ["ok3", 8],
    ]);
    expect(errorsOf(read).map(({ line, field }) => [line, field])).toEqual([
      [7, ""],
      [10, "answer"],
    ]);
  });

  it("a CSV whose lines end in CR alone (old Mac tools) numbers its rows by those lines", async () => {
    const csv = ["id,question,answer", "ok1,q,a", 'ok2,"x\ry",b', "short,q", "ok3,q,c"].join("\r");
    const read = await events(write("cr.csv", csv));
    expect(samplesOf(read).map((sample) => [sample.id, sample.line])).toEqual([
      ["ok1", 2],
      ["ok2", 3],
      ["ok3", 6],
    ]);
    expect(errorsOf(read).map(({ line }) => line)).toEqual([5]);
  });

  it("a Parquet row with a bad value is refused by row and field", async () => {
    const bad: Row[] = [rows[0] as Row, { id: "x", question: "q" }, rows[3] as Row];
    const read = await events(write("bad.parquet", toParquet(bad)));
    expect(samplesOf(read).map((sample) => sample.id)).toEqual(["a", "d"]);
    expect(errorsOf(read).map(({ line, field }) => [line, field])).toEqual([[2, "answer"]]);
  });

  it("a truncated gzip or zstd stream keeps the lines before it and says how to resume", async () => {
    // Enough varied rows that half the compressed file holds many whole blocks.
    const many = Array.from({ length: 20000 }, (_, i) => ({
      id: `r${i}`,
      question: `question ${i} ${((i * 2654435761) % 4294967296).toString(36)}`,
      answer: String(i * 7919),
    }));
    for (const [name, whole] of [
      ["cut.jsonl.gz", gzipSync(toJsonl(many))],
      ["cut.jsonl.zst", zstd(toJsonl(many))],
    ] as const) {
      const cut = write(name, whole.subarray(0, Math.floor(whole.length / 2)));
      for (const parseThreads of [0, 2]) {
        const read = await events(cut, { parseThreads });
        const samples = samplesOf(read);
        expect(samples.length, name).toBeGreaterThan(100);
        expect(samples.map((sample) => sample.id)).toEqual(
          many.slice(0, samples.length).map((row) => row.id),
        );
        expect(errorsOf(read), name).toEqual([
          {
            line: samples.length + 1,
            field: "",
            message: expect.stringMatching(
              /stream is cut off here .*rerun with the same --run-id to read the rest/,
            ),
          },
        ]);
      }
    }
  });

  it("a corrupt Parquet file is one error before anything is read", async () => {
    const whole = toParquet(rows);
    const path = write("corrupt.parquet", whole.subarray(0, whole.length - 20));
    await expect(events(path)).rejects.toThrow(/not a readable Parquet file .*Nothing was read/);
  });

  it("a Parquet row group that cannot be decoded is refused; the others are read", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      id: `r${i}`,
      question: `q${i}`,
      answer: `a${i}`,
    }));
    const bytes = toParquet(many, { rowGroupSize: 10 });
    // Overwrite the pages of the second row group's first column.
    const column = parquetMetadata(bytes.slice().buffer).row_groups[1]?.columns[0]?.meta_data;
    const start = Number(column?.data_page_offset);
    const broken = new Uint8Array(bytes);
    broken.fill(0xff, start, start + Number(column?.total_compressed_size));
    const read = await events(write("group.parquet", broken));
    const ids = samplesOf(read).map((sample) => sample.id);
    expect(ids).toContain("r0");
    expect(ids).toContain("r39");
    expect(ids).not.toContain("r10");
    expect(errorsOf(read)).toEqual([
      { line: 11, field: "", message: expect.stringContaining("rows 11-20 (row group 2)") },
    ]);
  });

  it("a --format the bytes contradict, or a file Assay cannot read, is one error with the fix", async () => {
    const parquet = write("p.parquet", toParquet(rows));
    await expect(events(parquet, { format: "csv" })).rejects.toThrow(
      /this is a Parquet file, not csv; pass --format parquet/,
    );
    const jsonl = write("j.jsonl", toJsonl(rows));
    await expect(events(jsonl, { format: "parquet" })).rejects.toThrow(
      /--format parquet was given, but this is not a Parquet file \(it does not start with PAR1\)/,
    );
    await expect(events(jsonl, { format: "csv" })).rejects.toThrow(/pass --format jsonl/);
    const zip = write("data.jsonl", Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]));
    await expect(events(zip)).rejects.toThrow(/zip data, which Assay cannot read/);
    const gzippedParquet = write("p.parquet.gz", gzipSync(toParquet(rows)));
    await expect(events(gzippedParquet)).rejects.toThrow(
      /not a Parquet file \(it is gzip-compressed/,
    );
  });

  it("a file without a telling name is CSV or TSV when its header names id and question", async () => {
    expect(samplesOf(await events(write("rows.txt", toCsv(rows)))).length).toBe(5);
    expect(samplesOf(await events(write("rows.data", toCsv(rows, "\t")))).length).toBe(5);
  });

  it("standard input is read like a file, whatever its format", async () => {
    for (const bytes of [toCsv(rows), gzipSync(toJsonl(rows)), toParquet(rows)]) {
      const stdin = Readable.from([Buffer.from(bytes)]);
      const dataset = await openDataset("-", { stdin });
      try {
        expect(dataset.resolvedPath).toBe("(standard input)");
        expect(samplesOf(await events2(dataset)).length).toBe(5);
      } finally {
        await dataset.close();
      }
    }
  });

  it("a JSONL export that writes null for every missing field loses no row, on threads too", async () => {
    // As DuckDB's COPY ... (FORMAT json) and pandas' to_json(lines=True) write it.
    const exported = [
      { id: "1", question: "q1", answer: "4", candidates: null, target: "4", label: null },
      { id: "2", question: "q2", answer: null, candidates: [{ answer: "x", label: null }] },
      { id: "3", question: "q3", answer: "5", target: null, metadata: { kind: null } },
    ];
    const path = write("duckdb.jsonl", toJsonl(exported));
    for (const parseThreads of [0, 2]) {
      const read = await events(path, { parseThreads });
      expect(errorsOf(read), `threads ${parseThreads}`).toEqual([]);
      const samples = samplesOf(read);
      expect(samples.map((sample) => [sample.id, sample.answer, sample.target])).toEqual([
        ["1", "4", "4"],
        ["2#0", "x", undefined],
        ["3", "5", undefined],
      ]);
      expect(samples[0]?.label).toBeUndefined();
      expect(samples[1]?.label).toBeUndefined();
      // Inside a value, null is data.
      expect(samples[2]?.metadata).toEqual({ kind: null });
    }
    // Through a mapping, a null column is the field left out as well.
    const mapped = write(
      "mapped.jsonl",
      toJsonl([{ id: "1", question: "q", answer: "a", gold: null }]),
    );
    const read = await events(mapped, { fields: { target: "gold" }, parseThreads: 0 });
    expect(errorsOf(read)).toEqual([]);
    expect(samplesOf(read)[0]?.target).toBeUndefined();
  });

  it("CSV, TSV and Parquet renderings of any rows give the samples their JSONL gives", async () => {
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom(",", '"', "\n", "\r\n", "\t", " ", "[", "{", "é", "😀", "\u2028"),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      maxLength: 12,
    });
    // A field may be null, as DuckDB, pandas and `datasets` write a row's missing fields:
    // in every format that is the field left out.
    const orNull = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null, freq: 4 });
    const row = fc.record(
      {
        question: text,
        answer: text,
        candidates: fc.constant(null),
        target: orNull(fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 }))),
        label: orNull(fc.boolean()),
        metadata: orNull(
          fc.dictionary(fc.constantFrom("kind", "lang", 'k,"1'), orNull(text), { maxKeys: 2 }),
        ),
      },
      { requiredKeys: ["question", "answer"] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 6 }), async (generated) => {
        const all = generated.map((fields, index) => ({ id: `row-${index}`, ...fields }));
        const jsonl = samplesOf(await events(write("p.jsonl", toJsonl(all))));
        expect(jsonl).toHaveLength(all.length);
        const leftOut = all.map((fields) =>
          Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)),
        );
        const withoutNulls = samplesOf(await events(write("p.jsonl", toJsonl(leftOut))));
        expect(jsonl).toEqual(withoutNulls);
        for (const [name, bytes] of [
          ["p.csv", toCsv(all)],
          ["p.tsv", toCsv(all, "\t")],
          ["p.parquet", toParquet(all)],
        ] as const) {
          const read = await events(write(name, bytes));
          expect(errorsOf(read), name).toEqual([]);
          expect(withoutLines(samplesOf(read)), name).toEqual(withoutLines(jsonl));
        }
        // A CSV row's line is the file's line (one per LF) where it starts, whatever line
        // breaks its quoted cells hold: one plus the line feeds written before it.
        for (const delimiter of [",", "\t"] as const) {
          const name = delimiter === "," ? "p.csv" : "p.tsv";
          const read = await events(write(name, toCsv(all, delimiter)));
          const physical = all.map(
            (_, index) => newlines(toCsv(all.slice(0, index), delimiter)) + 1,
          );
          expect(samplesOf(read).map((sample) => sample.line)).toEqual(physical);
        }
      }),
      { numRuns: 60 },
    );
  });
});

function newlines(text: string): number {
  return text.split("\n").length - 1;
}

async function events2(dataset: Awaited<ReturnType<typeof openDataset>>) {
  const out: DatasetEvent[] = [];
  for await (const event of readDataset(dataset)) out.push(event);
  return out;
}
