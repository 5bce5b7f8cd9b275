import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonConfig } from "../src/index.js";

// A configuration file may not be the file its reader meant to open (a path in a model
// folder leading elsewhere): a refusal says where the text breaks, never what it says.
describe("parseJsonConfig", () => {
  it.each([
    [
      '{"a": 1,\n "b": 2\n "c": 3}',
      "not valid JSON: expected ',' or '}' after property value at line 3, column 2",
    ],
    ['{"a":1}x', "not valid JSON: unexpected non-whitespace character at line 1, column 8"],
    ['{"a": "b', "not valid JSON: unterminated string at line 1, column 9"],
    ["  \n", "not valid JSON: the file is empty"],
    ["TOP SECRET", "not valid JSON: unexpected text or end of file"],
  ])("names where %j breaks", (text, message) => {
    expect(parseJsonConfig(text)).toMatchObject({ ok: false, path: [], message });
  });

  it("never quotes the text it could not parse", () => {
    const secret = "SECRET";
    const piece = fc.oneof(
      fc.constantFrom("{", "}", "[", "]", ":", ",", '"', " ", "\n", "1", "true", '"k"'),
      fc.constant(secret),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const parsed = parseJsonConfig(pieces.join(""));
        if (!parsed.ok) expect(parsed.message).not.toContain(secret);
      }),
      { numRuns: 2000 },
    );
  });
});
