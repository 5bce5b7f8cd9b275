import { formatPath } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseFieldPath } from "../src/ingest/field-path.js";

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

  it("refuses a path that does not say which column, saying where", () => {
    expect(refusal("")).toMatch(/empty/);
    expect(refusal("a..b")).toMatch(/a key must follow the dot at character 2/);
    expect(refusal(".a")).toMatch(/unexpected "\." at character 1/);
    expect(refusal("a.")).toMatch(/a key must follow the dot/);
    expect(refusal("a[")).toMatch(/expected \[<index>\] or \["<key>"\] at character 2/);
    expect(refusal("a[01]")).toMatch(/expected \[<index>\]/);
    expect(refusal('a["b"')).toMatch(/expected \[<index>\]/);
    expect(refusal('a[""]')).toMatch(/expected \[<index>\]/);
    expect(refusal('a"b')).toMatch(/unexpected "\\"" at character 2/);
    expect(refusal("a]")).toMatch(/unexpected "]"/);
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
});
