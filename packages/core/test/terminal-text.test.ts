import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeInputError, escapeTerminal } from "../src/index.js";

const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("escapeTerminal", () => {
  it("writes escape sequences, C1 controls, DEL and bidi overrides as visible escapes", () => {
    expect(escapeTerminal("id\u001b[2J\u001b]0;title\u0007")).toBe(
      "id\\u001b[2J\\u001b]0;title\\u0007",
    );
    expect(escapeTerminal("a\u009b31mb\u007f")).toBe("a\\u009b31mb\\u007f");
    expect(escapeTerminal("abc\u202edcba\u2066")).toBe("abc\\u202edcba\\u2066");
    expect(escapeTerminal("one\ntwo\rthree")).toBe("one\\u000atwo\\u000dthree");
    expect(escapeTerminal("one\ntwo\r", { keepNewlines: true })).toBe("one\ntwo\\u000d");
  });

  it("leaves ordinary text, accents, emoji and table borders alone", () => {
    const text = "│ ünïcödé │ 🧪 │ 中文 │ -0.5 │";
    expect(escapeTerminal(text)).toBe(text);
  });

  it("never lets an unsafe character through, and keeps only newlines when asked", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        expect(escapeTerminal(text)).not.toMatch(UNSAFE);
        const kept = escapeTerminal(text, { keepNewlines: true });
        expect(kept.replaceAll("\n", "")).not.toMatch(UNSAFE);
        expect(kept.split("\n").length).toBe(text.split("\n").length);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps JSON valid and equal to what it was", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
          if (json === undefined) continue;
          expect(JSON.parse(escapeTerminal(json, { keepNewlines: true }))).toEqual(
            JSON.parse(json),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("describeInputError", () => {
  it("shows a hostile id as one line without control characters", () => {
    const line = describeInputError({
      file: "data.jsonl",
      line: 3,
      field: "id",
      message: 'duplicate id "\u001b[31mq\u202e1\nfake.jsonl:9: ok" (first used on line 2)',
    });
    expect(line).toBe(
      'data.jsonl:3: field `id`: duplicate id "\\u001b[31mq\\u202e1\\u000afake.jsonl:9: ok" (first used on line 2)',
    );
  });
});
