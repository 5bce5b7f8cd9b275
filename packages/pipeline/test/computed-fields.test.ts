import {
  type FieldsSpec,
  FieldsSpecSchema,
  parseDatasetLine,
  type Sample,
  samplesFromLine,
} from "@assay/core";
import { ScorerRegistry } from "@assay/scorers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assertFieldsInFirstRecord,
  type DatasetEvent,
  openDataset,
  parseSpec,
  readDataset,
} from "../src/index.js";
import { compileFields } from "../src/ingest/field-map.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();

/** What one record becomes under `fields`: its samples, or the refused field and message. */
function read(record: unknown, fields: FieldsSpec): Sample[] | { field: string; message: string } {
  const compiled = compileFields(FieldsSpecSchema.parse(fields));
  if (!compiled.ok) throw new Error(`${compiled.field}: ${compiled.message}`);
  const { mapping } = compiled.fields;
  const parsed = parseDatasetLine(JSON.stringify(record), mapping ? { mapping } : {});
  return parsed.ok
    ? samplesFromLine(parsed.line, 1)
    : { field: parsed.field, message: parsed.message };
}

function refusedSpec(fields: unknown): { field: string; message: string } {
  const parsed = FieldsSpecSchema.safeParse(fields);
  if (!parsed.success) return { field: "schema", message: parsed.error.issues[0]?.message ?? "" };
  const compiled = compileFields(parsed.data);
  if (compiled.ok) throw new Error("the spec was accepted");
  return { field: compiled.field, message: compiled.message };
}

const chat = (...turns: [string, string][]) => turns.map(([role, content]) => ({ role, content }));
const CONVERSATION = {
  id: "c1",
  messages: chat(
    ["system", "Be brief."],
    ["user", "2+2?"],
    ["assistant", "4"],
    ["user", "and 3+3?"],
    ["assistant", "6"],
  ),
  gold: "6",
};

describe("chat turns in the spec's fields", () => {
  it("reads the last message with [-1], and the last of a role with [role=…][-1]", () => {
    const fields: FieldsSpec = {
      question: "messages[role=user][-1].content",
      answer: "messages[-1].content",
      target: "gold",
    };
    expect(read(CONVERSATION, fields)).toMatchObject([{ question: "and 3+3?", answer: "6" }]);
    // A conversation of another length still reads its own last turns, where a fixed
    // position (messages[3]) would read another turn.
    const short = { ...CONVERSATION, messages: CONVERSATION.messages.slice(1, 3) };
    expect(read(short, fields)).toMatchObject([{ question: "2+2?", answer: "4" }]);
    expect(
      read(CONVERSATION, { ...fields, question: "messages[role=user][0].content" }),
    ).toMatchObject([{ question: "2+2?" }]);
  });

  it("refuses a record with no turn of that role, naming the path", () => {
    const fields: FieldsSpec = { question: "messages[role=user][-1].content", answer: "gold" };
    const noUser = { id: 1, messages: chat(["system", "s"]), gold: "x" };
    expect(read(noUser, fields)).toEqual({
      field: "question",
      message:
        "missing (mapped from column `messages[role=user][-1].content`); `messages[role=user]` is an empty list",
    });
    expect(
      read({ id: 1, messages: [], gold: "x" }, { ...fields, question: "messages[-1].content" }),
    ).toEqual({
      field: "question",
      message: "missing (mapped from column `messages[-1].content`); `messages` is an empty list",
    });
  });

  it("warns, before the run, of a chat turn read by its position from the start", async () => {
    const path = files.write("chats.jsonl", jsonl([CONVERSATION]));
    const warningsOf = async (fields: FieldsSpec) => {
      const dataset = await openDataset(path);
      try {
        return await assertFieldsInFirstRecord(dataset, fields, "spec.yaml", 1 << 20);
      } finally {
        await dataset.close();
      }
    };
    // messages[2] is the first reply here; in a row without the system turn it is the
    // next question.
    expect(
      await warningsOf({
        question: "messages[role=user][0].content",
        answer: "messages[2].content",
      }),
    ).toEqual([
      "fields.answer reads messages[2].content: turn 2 of a chat, counted from its start, and a row whose chat " +
        "has another shape (a system turn first, more turns) has another turn there; to read the last " +
        "assistant turn, map messages[role=assistant][-1].content",
    ]);
    // By role, from the end, or a list that is no chat: nothing to say.
    expect(
      await warningsOf({
        question: "messages[role=user][0].content",
        answer: "messages[-1].content",
        target: "gold",
      }),
    ).toEqual([]);
  });

  it("reads [-k] as the item at length - k, for every list and k", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 7 }),
        (list, k) => {
          const fromEnd = read({ id: 1, question: "q", list }, { answer: `list[-${k + 1}]` });
          const index = list.length - (k + 1);
          if (index < 0) {
            expect(fromEnd).toMatchObject({ field: "answer" });
            return;
          }
          expect(fromEnd).toEqual(
            read({ id: 1, question: "q", list }, { answer: `list[${index}]` }),
          );
        },
      ),
    );
  });
});

const GSM8K_ROW = {
  id: "g1",
  question: "Tom has 1,200 apples ...",
  reply: "The answer is 1,235.",
  answer: "He buys 35 more.\n1200 + 35 = 1,235\n#### 1,235",
};

describe("a target captured by a pattern", () => {
  const fields: FieldsSpec = {
    answer: "reply",
    target: { from: "answer", pattern: "#### (-?[0-9.,]+)" },
  };

  it("is the first capture group of the pattern's match in the column", () => {
    expect(read(GSM8K_ROW, fields)).toMatchObject([
      { answer: "The answer is 1,235.", target: "1,235" },
    ]);
    // Without a group, the whole match.
    expect(
      read(GSM8K_ROW, { ...fields, target: { from: "answer", pattern: "-?\\d+$" } }),
    ).toMatchObject([{ target: "235" }]);
  });

  it("refuses a row it does not match, naming the field, the pattern and the column", () => {
    const row = { ...GSM8K_ROW, answer: "no marker here" };
    expect(read(row, fields)).toEqual({
      field: "target",
      message:
        'the pattern "#### (-?[0-9.,]+)" does not match column `answer` ("no marker here"); fix the pattern in the spec\'s fields.target, or the row',
    });
    const long = { ...GSM8K_ROW, answer: `${"step. ".repeat(20)}so the answer is 7` };
    expect(read(long, fields)).toMatchObject({
      message: expect.stringContaining('(ending "…ep. step. step. step. so the answer is 7")'),
    });
    expect(read({ ...GSM8K_ROW, answer: 42 }, fields)).toEqual({
      field: "target",
      message: 'column `answer` is 42, but the pattern "#### (-?[0-9.,]+)" reads text',
    });
  });

  it("refuses a bad pattern when the spec loads, naming fields.target.pattern", () => {
    expect(refusedSpec({ target: { from: "answer", pattern: "(a" } })).toMatchObject({
      field: "fields.target.pattern",
      message: expect.stringMatching(/^invalid regex/),
    });
    expect(refusedSpec({ target: { from: "answer", pattern: "(\\d)\\1" } })).toMatchObject({
      field: "fields.target.pattern",
      message: expect.stringMatching(/backreferences/),
    });
    expect(refusedSpec({ target: { from: "a..b", pattern: "x" } })).toMatchObject({
      field: "fields.target.from",
    });
    expect(refusedSpec({ target: { from: "answer" } }).message).toMatch(
      /^target must be a column path, or \{ from: <column>, pattern:/,
    );
  });
});

describe("a question joined from several columns", () => {
  const SQUAD_ROW = {
    id: "s1",
    context: "Paris is in France.",
    q: "Where is Paris?",
    answer: "France",
  };

  it("joins the columns in order, with a blank line or the separator given", () => {
    expect(read(SQUAD_ROW, { question: { join: ["context", "q"] } })).toMatchObject([
      { question: "Paris is in France.\n\nWhere is Paris?" },
    ]);
    expect(
      read(SQUAD_ROW, { question: { join: ["q", "context"], separator: "\nContext: " } }),
    ).toMatchObject([{ question: "Where is Paris?\nContext: Paris is in France." }]);
  });

  it("keeps SQuAD 2.0's empty answer list as the target, the no answer of exact and f1", () => {
    const unanswerable = { ...SQUAD_ROW, answers: { text: [], answer_start: [] } };
    expect(
      read(unanswerable, { question: { join: ["context", "q"] }, target: "answers.text" }),
    ).toMatchObject([{ target: [] }]);
  });

  it("refuses a row missing a column or holding other than text there, naming the column", () => {
    const { context: _, ...noContext } = SQUAD_ROW;
    expect(read(noContext, { question: { join: ["context", "q"] } })).toEqual({
      field: "question",
      message: "missing (mapped from column `context`)",
    });
    expect(
      read({ ...SQUAD_ROW, context: ["a"] }, { question: { join: ["context", "q"] } }),
    ).toEqual({
      field: "question",
      message: "column `context` is a list, but the question joins text columns",
    });
  });

  it("refuses a join of fewer than two columns or a bad path when the spec loads", () => {
    expect(refusedSpec({ question: { join: ["context"] } }).message).toBe(
      "list at least two columns to join",
    );
    expect(refusedSpec({ question: { joined: ["a", "b"] } }).message).toMatch(
      /^question must be a column path, or \{ join:/,
    );
    expect(refusedSpec({ question: { join: ["context", "a["] } })).toMatchObject({
      field: "fields.question.join[1]",
    });
    expect(refusedSpec({ question: { join: ["context", "context"] } })).toMatchObject({
      field: "fields.question",
      message: expect.stringMatching(/already read by fields\.question/),
    });
  });
});

describe("chat paths, patterns and joins over a whole dataset", () => {
  const fields: FieldsSpec = {
    question: { join: ["context", "messages[role=user][-1].content"] },
    answer: "messages[-1].content",
    target: { from: "answer", pattern: "#### (-?[0-9.,]+)" },
  };
  const row = (i: number) => ({
    id: `r${i}`,
    context: `c${i}`,
    messages: chat(
      ["user", `q${i}`],
      ...(i % 2 === 0 ? ([["user", `again ${i}`]] as [string, string][]) : []),
      ["assistant", `${i}`],
    ),
    answer: i % 9 === 4 ? `no marker ${i}` : `because\n#### ${i}`,
  });

  it("reads the same on parse threads as on the main thread", async () => {
    const path = files.write("chats.jsonl", jsonl(Array.from({ length: 400 }, (_, i) => row(i))));
    const collect = async (parseThreads: number) => {
      const events: DatasetEvent[] = [];
      for await (const event of readDataset(path, { fields, parseThreads })) events.push(event);
      return events.map((event) =>
        event.kind === "error" ? `${event.error.line} ${event.error.field}` : event.samples,
      );
    };
    const here = await collect(0);
    expect(here[2]).toEqual([
      expect.objectContaining({ question: "c2\n\nagain 2", answer: "2", target: "2" }),
    ]);
    expect(here[4]).toBe("5 target");
    expect(await collect(2)).toEqual(here);
  });

  it("refuses, before the run, a pattern the first record does not match", async () => {
    const dataset = await openDataset(files.write("first.jsonl", jsonl([row(4), row(5)])));
    try {
      await expect(
        assertFieldsInFirstRecord(dataset, fields, "spec.yaml", 1 << 20),
      ).rejects.toThrow(
        /fields\.target: in the dataset's first record \(.*first\.jsonl line 1\): the pattern "#### \(-\?\[0-9\.,\]\+\)" does not match column `answer`/,
      );
    } finally {
      await dataset.close();
    }
  });
});

describe("the field-mapping examples of docs/cli.md, as a spec writes them in YAML", () => {
  it("load as the fields they show", () => {
    const spec = parseSpec(
      [
        "default:",
        "  scorers: [{ name: exact }]",
        "fields:",
        "  id: { row: true }",
        '  question: { join: [context, "messages[role=user][-1].content"], separator: "\\n\\n" }',
        "  answer: messages[-1].content",
        "  target: { from: solution, pattern: '#### (-?\\d[0-9.,]*)' }",
      ].join("\n"),
      "s.yaml",
      new ScorerRegistry(),
    );
    expect(spec.fields).toEqual({
      id: { row: true },
      question: { join: ["context", "messages[role=user][-1].content"], separator: "\n\n" },
      answer: "messages[-1].content",
      target: { from: "solution", pattern: "#### (-?\\d[0-9.,]*)" },
    });
  });
});
