import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { FieldsSpec, Sample } from "@assay/core";
import {
  type Column,
  type Row,
  toCsv,
  toJsonl,
  toParquet,
} from "@assay/test-support/dataset-renderings";
import { afterAll, describe, expect, it } from "vitest";
import {
  assertFieldsInFirstRecord,
  type DatasetEvent,
  openDataset,
  readDataset,
} from "../src/index.js";

const work = mkdtempSync(join(tmpdir(), "assay-formats-fields-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(name: string, bytes: string | Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

async function read(path: string, fields: FieldsSpec) {
  const out: DatasetEvent[] = [];
  for await (const event of readDataset(path, { fields, parseThreads: 0 })) out.push(event);
  return out;
}

function samplesOf(all: DatasetEvent[]): Omit<Sample, "line">[] {
  return all
    .flatMap((event) => (event.kind === "samples" ? event.samples : []))
    .map(({ line: _line, ...rest }) => rest);
}

// A team's layout: its own column names; the target a JSON list in a column of its own.
const teamRows: Row[] = [
  {
    row_id: "a",
    prompt: "What is 2+2?",
    completion: "4",
    reference: ["4", "four"],
    subject: "math",
  },
  { row_id: "b", prompt: "Say hi", completion: "hi", reference: "[draft]", subject: "chat" },
];
const ownRows: Row[] = [
  {
    id: "a",
    question: "What is 2+2?",
    answer: "4",
    target: ["4", "four"],
    metadata: { subject: "math" },
  },
  { id: "b", question: "Say hi", answer: "hi", target: "[draft]", metadata: { subject: "chat" } },
];
const teamColumns: Column[] = [
  ["row_id", "id"],
  ["prompt", "question"],
  ["completion", "answer"],
  ["reference", "target"],
  ["subject", "subject"],
];
const fields: FieldsSpec = {
  id: "row_id",
  question: "prompt",
  answer: "completion",
  target: "reference",
  metadata: ["subject"],
};

describe("the spec's fields over CSV, TSV, Parquet and compressed JSONL", () => {
  it("reads each format's own columns as the fields they are mapped to, cells by the mapped field's rule", async () => {
    const expected = samplesOf(await read(write("own.jsonl", toJsonl(ownRows)), {}));
    expect(expected).toHaveLength(2);
    const renderings: [string, string | Uint8Array][] = [
      ["team.csv", toCsv(teamRows, ",", teamColumns)],
      ["team.tsv", toCsv(teamRows, "\t", teamColumns)],
      ["team.parquet", toParquet(teamRows, { columns: teamColumns })],
      ["team.jsonl.gz", gzipSync(toJsonl(teamRows))],
    ];
    for (const [name, bytes] of renderings) {
      const events = await read(write(name, bytes), fields);
      expect(samplesOf(events), name).toEqual(expected);
    }
  });

  it("names the dataset's column when a mapped CSV cell is not what its field needs", async () => {
    const path = write(
      "bad.csv",
      'row_id,prompt,completion,reference,subject\na,q,4,"[not json",m\n',
    );
    const events = await read(path, fields);
    const errors = events.flatMap((event) => (event.kind === "error" ? [event.error] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.line).toBe(2);
    expect(errors[0]?.field).toBe("target");
    expect(errors[0]?.message).toContain("reference");
  });

  it("refuses a mapping whose column the first CSV row or Parquet row lacks, before anything is read", async () => {
    const wrong: FieldsSpec = { ...fields, id: "uid" };
    for (const [name, bytes] of [
      ["first.csv", toCsv(teamRows, ",", teamColumns)],
      ["first.parquet", toParquet(teamRows, { columns: teamColumns })],
    ] as const) {
      const dataset = await openDataset(write(name, bytes));
      try {
        await expect(
          assertFieldsInFirstRecord(dataset, wrong, "spec.yaml", 1 << 20),
          name,
        ).rejects.toThrow(/fields\.id = uid.*no such field in the dataset's first record.*row_id/);
        // The right mapping passes on the same handle.
        await assertFieldsInFirstRecord(dataset, fields, "spec.yaml", 1 << 20);
      } finally {
        await dataset.close();
      }
    }
  });
});

describe("id: { row: true }", () => {
  // No ids; the first prompt spans two lines of a CSV file, so lines and rows differ there.
  const rows: Row[] = ["What is\n2+2?", "Say hi", "Count to 3"].map((prompt, i) => ({
    prompt,
    completion: `a${i}`,
  }));
  const columns: Column[] = [
    ["prompt", "question"],
    ["completion", "answer"],
  ];
  const byRow: FieldsSpec = { id: { row: true }, question: "prompt", answer: "completion" };

  it("is the record's position from 1, the same in every format", async () => {
    const renderings: [string, string | Uint8Array][] = [
      ["rows.jsonl", toJsonl(rows)],
      ["rows.csv", toCsv(rows, ",", columns)],
      ["rows.tsv", toCsv(rows, "\t", columns)],
      ["rows.parquet", toParquet(rows, { columns })],
      ["rows.jsonl.gz", gzipSync(toJsonl(rows))],
    ];
    for (const [name, bytes] of renderings) {
      const events = await read(write(name, bytes), byRow);
      expect(
        samplesOf(events).map(({ id, answer }) => [id, answer]),
        name,
      ).toEqual([
        ["1", "a0"],
        ["2", "a1"],
        ["3", "a2"],
      ]);
    }
    // On parse threads, a JSONL line's position is its line, as on the main thread.
    const path = write(
      "many.jsonl",
      toJsonl(Array.from({ length: 300 }, (_, i) => rows[i % 3] as Row)),
    );
    const ids: string[] = [];
    for await (const event of readDataset(path, { fields: byRow, parseThreads: 2 })) {
      if (event.kind === "samples") ids.push(...event.samples.map((sample) => sample.id));
    }
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => String(i + 1)));
  });

  it("is refused in any other spelling, naming fields.id", async () => {
    const { FieldsSpecSchema } = await import("@assay/core");
    const refused = FieldsSpecSchema.safeParse({ id: { row: false } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe(
      "expected a column path (a string), or { row: true } for the record's position; got an object",
    );
  });
});
