import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatFieldPath, type PathStep, parseFieldPath } from "../src/field-path.js";
import { formatPath } from "../src/index.js";

const steps = (path: string) => {
  const parsed = parseFieldPath(path);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.steps;
};
const refusal = (path: string) => {
  const parsed = parseFieldPath(path);
  return parsed.ok ? undefined : parsed.message;
};

// Keys made of the characters that could confuse a path: dots, brackets, quotes, escapes.
const awkwardKey = fc.string({
  unit: fc.constantFrom("a", "B", "_", "0", ".", "[", "]", '"', "\\", " ", "é", "\u200b"),
  minLength: 1,
  maxLength: 6,
});

// A filter's key is written bare, so it holds none of the path's punctuation.
const bareKey = fc.string({
  unit: fc.constantFrom("a", "B", "_", "0", " ", "-", "é"),
  minLength: 1,
  maxLength: 5,
});

describe("column paths in the spec's fields", () => {
  it("reads keys, dotted nesting, list items and quoted keys", () => {
    expect(steps("reference")).toEqual(["reference"]);
    expect(steps("completion.text")).toEqual(["completion", "text"]);
    expect(steps("outputs[0].text")).toEqual(["outputs", 0, "text"]);
    expect(steps('meta["v1.2"].score')).toEqual(["meta", "v1.2", "score"]);
    expect(steps('["a.b"]')).toEqual(["a.b"]);
    expect(steps('x["say \\"hi\\""]')).toEqual(["x", 'say "hi"']);
    expect(steps("my column.sub-key")).toEqual(["my column", "sub-key"]);
    // A digit after a dot is a key: objects with numeric keys are common in exports.
    expect(steps("scores.0")).toEqual(["scores", "0"]);
  });

  it("reads a negative index as counting from the end, and a filter by a key's value", () => {
    expect(steps("messages[-1].content")).toEqual(["messages", -1, "content"]);
    expect(steps("messages[role=user][-1].content")).toEqual([
      "messages",
      { key: "role", equals: "user" },
      -1,
      "content",
    ]);
    expect(steps('turns[speaker="Dr. Who"][0]')).toEqual([
      "turns",
      { key: "speaker", equals: "Dr. Who" },
      0,
    ]);
    expect(steps('t[from="a]b"]')).toEqual(["t", { key: "from", equals: "a]b" }]);
  });

  it("refuses a path that does not say which column, saying where", () => {
    expect(refusal("")).toMatch(/empty/);
    expect(refusal("a..b")).toMatch(/a key must follow the dot at character 2/);
    expect(refusal(".a")).toMatch(/unexpected "\." at character 1/);
    expect(refusal("a.")).toMatch(/a key must follow the dot/);
    expect(refusal("a[")).toMatch(
      /expected \[<index>\], \[<key>=<value>\] or \["<key>"\] at character 2/,
    );
    expect(refusal("a[01]")).toMatch(/expected \[<index>\]/);
    expect(refusal('a["b"')).toMatch(/expected \[<index>\]/);
    expect(refusal('a[""]')).toMatch(/expected \[<index>\]/);
    expect(refusal('a"b')).toMatch(/unexpected "\\"" at character 2/);
    expect(refusal("a]")).toMatch(/unexpected "]"/);
    expect(refusal("a[-0]")).toMatch(/expected \[<index>\]/);
    expect(refusal("a[-]")).toMatch(/expected \[<index>\]/);
    expect(refusal("a[role=]")).toMatch(/expected \[<index>\]/);
    expect(refusal("a[=user]")).toMatch(/expected \[<index>\]/);
    expect(refusal('a[role="user]')).toMatch(/expected \[<index>\]/);
  });

  it("reads back every path as error messages write it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(awkwardKey, fc.nat({ max: 20 })), { minLength: 1, maxLength: 5 }),
        (path) => {
          expect(steps(formatPath(path))).toEqual(path);
        },
      ),
    );
  });

  it("reads back every path with negative indexes and filters as it is written", () => {
    const filter = fc.record({ key: bareKey, equals: awkwardKey });
    const step: fc.Arbitrary<PathStep> = fc.oneof(
      awkwardKey,
      fc.integer({ min: -20, max: 20 }),
      filter,
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 5 }), (path) => {
        expect(steps(formatFieldPath(path))).toEqual(path);
      }),
    );
  });
});
