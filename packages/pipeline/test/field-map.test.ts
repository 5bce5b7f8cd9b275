import {
  type FieldsSpec,
  FieldsSpecSchema,
  formatPath,
  parseDatasetLine,
  type Sample,
  SpecError,
  samplesFromLine,
} from "@assay/core";
import { ScorerRegistry } from "@assay/scorers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, loadSpec, parseSpec, readDataset } from "../src/index.js";
import { compileFields } from "../src/ingest/field-map.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = new ScorerRegistry();

/** What one record becomes under `fields`: its samples, or the refused field and message. */
function read(record: unknown, fields: FieldsSpec): Sample[] | { field: string; message: string } {
  const compiled = compileFields(fields);
  if (!compiled.ok) throw new Error(compiled.message);
  const { mapping } = compiled.fields;
  const parsed = parseDatasetLine(JSON.stringify(record), mapping ? { mapping } : {});
  return parsed.ok
    ? samplesFromLine(parsed.line, 1)
    : { field: parsed.field, message: parsed.message };
}

function spec(fields: string): () => unknown {
  return () =>
    parseSpec(`default:\n  scorers: [{ name: exact }]\nfields:\n${fields}`, "s.yaml", registry);
}

const TEAM_RECORD = {
  row_id: 7,
  prompt: "2+2?",
  completion: { text: "4", model: "m" },
  reference: "4",
  subject: "math",
  info: { level: 2 },
  "v1.2": { ok: true },
};
const TEAM_FIELDS: FieldsSpec = {
  id: "row_id",
  question: "prompt",
  answer: "completion.text",
  target: "reference",
  metadata: ["subject", "info.level", '["v1.2"].ok'],
};

describe("the spec's fields", () => {
  it("reads each field from the team's column, nested, and ignores the other columns", () => {
    expect(read(TEAM_RECORD, TEAM_FIELDS)).toEqual([
      {
        id: "7",
        taskId: "7",
        candidateIndex: 0,
        question: "2+2?",
        answer: "4",
        target: "4",
        metadata: { subject: "math", level: 2, ok: true },
        line: 1,
      },
    ]);
  });

  it("reads a field left out from the column of its own name", () => {
    const record = { n: "a", question: "q", answer: "x", label: true, metadata: { k: 1 } };
    expect(read(record, { id: "n" })).toMatchObject([
      { id: "a", question: "q", answer: "x", label: true, metadata: { k: 1 } },
    ]);
    // Two fields may trade columns.
    expect(
      read({ id: 1, question: "A", answer: "Q" }, { question: "answer", answer: "question" }),
    ).toMatchObject([{ question: "Q", answer: "A" }]);
  });

  it("rebuilds candidates from a list column, each item's fields from its own keys", () => {
    const record = {
      id: "t",
      question: "q",
      outputs: [
        { text: "a", correct: true, extra: 1 },
        { text: "b", correct: false, generator: { model: "m", input_tokens: 3, output_tokens: 1 } },
      ],
    };
    const fields: FieldsSpec = {
      candidates: { from: "outputs", answer: "text", label: "correct" },
    };
    expect(read(record, fields)).toEqual([
      expect.objectContaining({ id: "t#0", answer: "a", label: true, candidateIndex: 0 }),
      expect.objectContaining({ id: "t#1", answer: "b", label: false, candidateIndex: 1 }),
    ]);
    expect(read(record, fields)).toMatchObject([
      {},
      { generator: { model: "m", input_tokens: 3 } },
    ]);
  });

  it("with both answer and candidates mapped, reads whichever a record holds", () => {
    const fields: FieldsSpec = { answer: "reply", candidates: { from: "replies", answer: "text" } };
    expect(read({ id: 1, question: "q", reply: "a" }, fields)).toMatchObject([{ answer: "a" }]);
    expect(read({ id: 1, question: "q", replies: [{ text: "b" }] }, fields)).toMatchObject([
      { id: "1#0", answer: "b" },
    ]);
    expect(read({ id: 1, question: "q" }, fields)).toEqual({
      field: "answer",
      message:
        "missing `answer` (a string) or `candidates` (a list of {answer}) (mapped from column `reply`)",
    });
  });

  it("refuses a record missing a mapped column, naming the field and the column", () => {
    const { reference: _, ...withoutTarget } = TEAM_RECORD;
    expect(read(withoutTarget, TEAM_FIELDS)).toEqual({
      field: "target",
      message: "missing (mapped from column `reference`)",
    });
    expect(read({ ...TEAM_RECORD, completion: "4" }, TEAM_FIELDS)).toEqual({
      field: "answer",
      message: 'missing (mapped from column `completion.text`); `completion` is "4", not an object',
    });
    expect(read({ ...TEAM_RECORD, info: {} }, TEAM_FIELDS)).toEqual({
      field: "metadata.level",
      message: "missing (mapped from column `info.level`); `info` is not an object with that key",
    });
    const outputs = { id: 1, question: "q", outputs: [{ text: "a" }, { txt: "b" }] };
    expect(read(outputs, { candidates: { from: "outputs", answer: "text" } })).toEqual({
      field: "candidates[1].answer",
      message: "missing (mapped from column `outputs[1].text`)",
    });
  });

  it("says which column a refused value came from", () => {
    expect(read({ ...TEAM_RECORD, reference: [{}] }, TEAM_FIELDS)).toEqual({
      field: "target",
      message: expect.stringMatching(/item \[0\] is an object \(mapped from column `reference`\)$/),
    });
    expect(read({ ...TEAM_RECORD, row_id: "" }, TEAM_FIELDS)).toEqual({
      field: "id",
      message: "id must not be empty (mapped from column `row_id`)",
    });
    const outputs = { id: 1, question: "q", outputs: [{ text: 5 }] };
    expect(read(outputs, { candidates: { from: "outputs", answer: "text" } })).toEqual({
      field: "candidates[0].answer",
      message: expect.stringMatching(/\(mapped from column `outputs\[0\]\.text`\)$/),
    });
    // A field read from its own name is refused as without a mapping.
    expect(read({ ...TEAM_RECORD, label: "yes" }, TEAM_FIELDS)).toEqual({
      field: "label",
      message: 'label must be true or false, got "yes"',
    });
  });

  it("with fields that rename nothing, ignores other columns and reads the rest as written", () => {
    const record = { id: 1, question: "q", answer: "a", notes: "kept out" };
    expect(read(record, { id: "id" })).toEqual(read({ id: 1, question: "q", answer: "a" }, {}));
    expect(parseDatasetLine(JSON.stringify(record))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/unknown field `notes`/),
    });
  });

  it("is refused when the spec loads: unknown fields, bad or empty paths, a column read twice", () => {
    expect(spec("  answr: text\n")).toThrow(/s\.yaml: fields: unknown field `answr`/);
    expect(spec('  id: ""\n')).toThrow(/s\.yaml: fields\.id: the path is empty/);
    expect(spec("  id: a..b\n")).toThrow(/fields\.id: a key must follow the dot at character 2/);
    expect(spec("  id: 3\n")).toThrow(
      /fields\.id: expected a column path \(a string\), or \{ row: true \} for the record's position; got 3/,
    );
    expect(spec("  id: x\n  task_id: x\n")).toThrow(
      /fields\.task_id: column `x` is already read by fields\.id; each column feeds one field/,
    );
    expect(spec("  metadata: [a.kind, b.kind]\n")).toThrow(
      /fields\.metadata\[1\]: two columns would both be metadata `kind`/,
    );
    expect(spec('  metadata: ["tags[0]"]\n')).toThrow(
      /fields\.metadata\[0\]: a metadata column must end in a key/,
    );
    expect(spec("  metadata: []\n")).toThrow(/fields\.metadata: list at least one column/);
    expect(spec("  candidates: { from: out, answr: t }\n")).toThrow(
      /fields\.candidates: unknown field `answr`/,
    );
    expect(spec("  candidates: 5\n")).toThrow(
      /fields\.candidates: candidates must be a column path/,
    );
    expect(spec("  candidates: { from: out, answer: 'a[' }\n")).toThrow(
      /fields\.candidates\.answer: expected/,
    );
    expect(spec("  id: row_id\n")()).toMatchObject({ fields: { id: "row_id" } });
    expect(spec("  answer: '[\"completion.text\"]'\n")()).toMatchObject({
      fields: { answer: '["completion.text"]' },
    });
    expect(spec("  id: a..b\n")).toThrow(SpecError);
  });

  it("reads every line of the example team dataset through the example spec", async () => {
    const example = new URL("../../../examples/team-fields/", import.meta.url).pathname;
    const { fields } = await loadSpec(`${example}spec.yaml`, registry);
    const samples: Sample[] = [];
    for await (const event of readDataset(`${example}team.jsonl`, { fields: fields ?? {} })) {
      if (event.kind === "error") throw event.error;
      samples.push(...event.samples);
    }
    expect(samples.map((sample) => [sample.id, sample.answer, sample.metadata])).toContainEqual([
      "math-2#1",
      "10",
      { subject: "arithmetic", level: 3 },
    ]);
    expect(samples).toHaveLength(7);
  });

  it("applies on parse threads as on the main thread", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) =>
      i % 7 === 3
        ? { row_id: `r${i}`, prompt: "q" }
        : { row_id: `r${i}`, prompt: "q", completion: { text: `a${i}` }, subject: i % 2 },
    );
    const path = files.write("team.jsonl", jsonl(lines));
    const fields: FieldsSpec = {
      id: "row_id",
      question: "prompt",
      answer: "completion.text",
      metadata: ["subject"],
    };
    const collect = async (parseThreads: number) => {
      const events: DatasetEvent[] = [];
      for await (const event of readDataset(path, { fields, parseThreads })) events.push(event);
      return events.map((event) =>
        event.kind === "error"
          ? `${event.error.line} ${event.error.field}: ${event.error.reason}`
          : event.samples,
      );
    };
    const here = await collect(0);
    expect(here[3]).toBe("4 answer: missing (mapped from column `completion.text`)");
    expect(here[4]).toEqual([
      expect.objectContaining({ id: "r4", answer: "a4", metadata: { subject: 0 } }),
    ]);
    expect(await collect(2)).toEqual(here);
  });
});

// The property: a record written in a team's own layout (fields renamed, nested at any
// path, metadata columns spread around, candidates under other keys, extra columns), read
// through the matching `fields`, gives exactly the samples of the record in Assay's names.

const FIELD_NAMES = new Set([
  "id",
  "task_id",
  "question",
  "answer",
  "candidates",
  "target",
  "label",
  "metadata",
  "scorers",
  "generator",
  "steps",
]);
const key = fc
  .string({
    unit: fc.constantFrom("a", "b", "_", "0", ".", "[", "]", '"', " ", "é"),
    minLength: 1,
    maxLength: 5,
  })
  .filter((k) => !FIELD_NAMES.has(k));
const nested = fc.array(fc.oneof(key, fc.nat({ max: 2 })), { maxLength: 2 });
const text = fc.string({ maxLength: 8 });

const assayRecord = fc
  .record(
    {
      id: fc.oneof(fc.stringMatching(/^[a-z0-9]{1,6}$/), fc.nat()),
      task_id: fc.stringMatching(/^[a-z]{1,4}$/),
      question: text,
      answer: text,
      candidates: fc.oneof(
        fc.array(fc.record({ answer: text }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ answer: text, label: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      ),
      target: fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 2 })),
      label: fc.boolean(),
      metadata: fc.dictionary(key, fc.oneof(text, fc.integer(), fc.boolean()), { maxKeys: 3 }),
    },
    { requiredKeys: ["id", "question"] },
  )
  .map((record) => {
    // A line holds one answer or a list of candidates, never both.
    const { answer, candidates, ...rest } = record;
    return candidates !== undefined && answer === undefined
      ? { ...rest, candidates }
      : { ...rest, answer: answer ?? "" };
  });

/** Puts `value` at `steps` inside `root`, making the objects and lists on the way. */
function place(root: Record<string, unknown>, steps: (string | number)[], value: unknown): void {
  let at: Record<string | number, unknown> = root;
  for (const [depth, step] of steps.entries()) {
    if (depth === steps.length - 1) {
      at[step] = value;
      return;
    }
    const next = steps[depth + 1];
    at[step] ??= typeof next === "number" ? Array.from({ length: next + 1 }, () => null) : {};
    at = at[step] as Record<string | number, unknown>;
  }
}

describe("fields, for every record and mapping", () => {
  it("reading the renamed record gives the samples of the record in Assay's names", () => {
    fc.assert(
      fc.property(
        assayRecord,
        fc.uniqueArray(key, { minLength: 12, maxLength: 12 }),
        fc.array(nested, { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.tuple(key, key).filter(([a, b]) => a !== b),
        (record, tops, subpaths, renamed, [answerKey, labelKey]) => {
          const team: Record<string, unknown> = { "extra column": { ignored: [1] } };
          const fields: Record<string, unknown> = {};
          Object.entries(record).forEach(([name, value], index) => {
            if (!(renamed[index] ?? false)) {
              team[name] = value;
              return;
            }
            const steps = [tops[index] as string, ...(subpaths[index] ?? [])];
            if (name === "metadata") {
              // Each metadata key becomes a column of its own, somewhere under this one.
              const columns = Object.entries(value as Record<string, unknown>).map(([k, v], i) => {
                const at = [...steps, `m${i}`, k];
                place(team, at, v);
                return formatPath(at);
              });
              if (columns.length > 0) fields.metadata = columns;
              else team.metadata = value;
            } else if (name === "candidates") {
              const items = (value as { answer: string; label?: boolean }[]).map((c) => ({
                [answerKey]: c.answer,
                ...(c.label !== undefined && { [labelKey]: c.label }),
                unread: 0,
              }));
              place(team, steps, items);
              const hasLabels = (value as { label?: boolean }[])[0]?.label !== undefined;
              fields.candidates = {
                from: formatPath(steps),
                answer: formatPath([answerKey]),
                ...(hasLabels && { label: formatPath([labelKey]) }),
              };
            } else {
              place(team, steps, value);
              fields[name] = formatPath(steps);
            }
          });
          const spec = FieldsSpecSchema.parse(fields);
          expect(read(team, spec)).toEqual(read(record, {}));
          expect(Array.isArray(read(record, {}))).toBe(true);
        },
      ),
    );
  });
});
