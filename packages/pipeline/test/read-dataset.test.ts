import type { InputError } from "@assay/core";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, readDataset } from "../src/index.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();

async function collect(path: string, maxLineBytes?: number): Promise<DatasetEvent[]> {
  const events: DatasetEvent[] = [];
  const options = maxLineBytes === undefined ? {} : { maxLineBytes };
  for await (const event of readDataset(path, options)) events.push(event);
  return events;
}

function errorsOf(events: DatasetEvent[]): InputError[] {
  return events.flatMap((event) => (event.kind === "error" ? [event.error] : []));
}

const good = (id: string) => ({ id, question: "q?", answer: "a", target: "a" });

describe("readDataset", () => {
  it("reads valid lines into samples with their line numbers, skipping blank lines", async () => {
    const path = files.write(
      "ok.jsonl",
      `${JSON.stringify(good("a"))}\n\n${JSON.stringify(good("b"))}\n`,
    );
    const events = await collect(path);
    expect(events.map((e) => (e.kind === "samples" ? [e.line, e.samples[0]?.id] : null))).toEqual([
      [1, "a"],
      [3, "b"],
    ]);
  });

  it("expands candidates into one sample per candidate sharing the task id", async () => {
    const line = {
      id: "t1",
      question: "q",
      candidates: [{ answer: "x", label: true }, { answer: "y" }],
    };
    const [event] = await collect(files.write("cand.jsonl", jsonl([line])));
    expect(
      event?.kind === "samples" &&
        event.samples.map((s) => [s.id, s.taskId, s.candidateIndex, s.label]),
    ).toEqual([
      ["t1#0", "t1", 0, true],
      ["t1#1", "t1", 1, undefined],
    ]);
  });

  it("reports malformed JSON with file and line, and keeps the other lines", async () => {
    const path = files.write(
      "malformed.jsonl",
      jsonl([good("a"), '{"id": "b", "question": ', good("c")]),
    );
    const events = await collect(path);
    const [error] = errorsOf(events);
    expect(error?.message).toMatch(/malformed\.jsonl:2: malformed JSON/);
    expect(events.filter((e) => e.kind === "samples")).toHaveLength(2);
  });

  it("names the field and the expected type for a wrong type", async () => {
    const path = files.write("types.jsonl", jsonl([{ id: "a", question: "q", answer: 42 }]));
    const [error] = errorsOf(await collect(path));
    expect(error?.field).toBe("answer");
    expect(error?.message).toMatch(
      /types\.jsonl:1: field `answer`: answer must be a string, got 42$/,
    );
  });

  it("names a missing required field", async () => {
    const path = files.write("missing.jsonl", jsonl([{ id: "a", answer: "x" }]));
    const [error] = errorsOf(await collect(path));
    expect(error?.field).toBe("question");
  });

  it("asks for answer or candidates when neither is given", async () => {
    const path = files.write("noanswer.jsonl", jsonl([{ id: "a", question: "q" }]));
    const [error] = errorsOf(await collect(path));
    expect(error?.field).toBe("answer");
    expect(error?.reason).toMatch(/answer.*candidates/);
  });

  it("rejects unknown top-level fields and says where extra data goes", async () => {
    const path = files.write("unknown.jsonl", jsonl([{ ...good("a"), anwser: "typo" }]));
    const [error] = errorsOf(await collect(path));
    expect(error?.reason).toMatch(/unknown field `anwser`.*metadata/);
  });

  it("reports a duplicate id with the line that used it first", async () => {
    const path = files.write("dup.jsonl", jsonl([good("a"), good("b"), good("a")]));
    const [error] = errorsOf(await collect(path));
    expect(error?.line).toBe(3);
    expect(error?.reason).toMatch(/duplicate id "a" \(first used on line 1\)/);
  });

  it("reports a line over the size limit without buffering it, and reads on", async () => {
    const huge = JSON.stringify({ ...good("big"), question: "x".repeat(5000) });
    const path = files.write("long.jsonl", jsonl([good("a"), huge, good("c")]));
    const events = await collect(path, 1000);
    const [error] = errorsOf(events);
    expect(error?.line).toBe(2);
    expect(error?.reason).toMatch(/longer than 1000 bytes/);
    expect(events.filter((e) => e.kind === "samples")).toHaveLength(2);
  });

  it("reports invalid UTF-8 with its line", async () => {
    const bad = Buffer.concat([
      Buffer.from(`${JSON.stringify(good("a"))}\n{"id":"b","question":"`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`","answer":"x"}\n${JSON.stringify(good("c"))}\n`),
    ]);
    const events = await collect(files.write("utf8.jsonl", bad));
    const [error] = errorsOf(events);
    expect(error?.line).toBe(2);
    expect(error?.reason).toMatch(/invalid UTF-8/);
    expect(events.filter((e) => e.kind === "samples")).toHaveLength(2);
  });

  it("handles CRLF line endings and a byte-order mark", async () => {
    const text = `\uFEFF${JSON.stringify(good("a"))}\r\n${JSON.stringify(good("b"))}\r\n`;
    const events = await collect(files.write("crlf.jsonl", text));
    expect(errorsOf(events)).toEqual([]);
    expect(events).toHaveLength(2);
  });

  it("refuses an empty file", async () => {
    await expect(collect(files.write("empty.jsonl", "\n\n"))).rejects.toThrow(
      /empty\.jsonl: the dataset is empty/,
    );
  });

  it("refuses a missing file", async () => {
    await expect(collect(`${files.dir}/nope.jsonl`)).rejects.toThrow(/nope\.jsonl: file not found/);
  });
});
