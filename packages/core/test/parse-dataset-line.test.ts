import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPath, MAX_ID_LENGTH, MAX_NESTING_DEPTH, parseDatasetLine } from "../src/index.js";
import { serialize } from "./json-text.js";

const BASE = '"question":"q","answer":"a"';
const line = (fields: string) => `{${fields}}`;
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

function refusal(text: string): { field: string; message: string } {
  const parsed = parseDatasetLine(text);
  if (parsed.ok) throw new Error(`expected ${text.slice(0, 80)} to be refused`);
  return { field: parsed.field, message: parsed.message };
}

describe("parseDatasetLine: messages say what was expected and what was received", () => {
  it.each([
    [
      "a float id",
      line(`"id":1.5,${BASE}`),
      "id",
      "id must be a string or a safe integer, got 1.5",
    ],
    [
      "a boolean id",
      line(`"id":true,${BASE}`),
      "id",
      "id must be a string or a safe integer, got true",
    ],
    [
      "an object id",
      line(`"id":{},${BASE}`),
      "id",
      "id must be a string or a safe integer, got an object",
    ],
    ["no id", line(BASE), "id", "id is missing; expected a string or a safe integer"],
    ["an empty object", "{}", "id", "id is missing; expected a string or a safe integer"],
    [
      "an id of -0",
      line(`"id":-0,${BASE}`),
      "id",
      "id must be a string or a safe integer, got -0 (it would read as 0)",
    ],
    ["a null line", "null", "", "expected a JSON object, got null"],
    ["a list line", "[1,2]", "", "expected a JSON object, got a list"],
    ["a string line", '"text"', "", 'expected a JSON object, got "text"'],
    ["a number line", "42", "", "expected a JSON object, got 42"],
    [
      "a nested list as question",
      line(`"id":"a","question":[["x"]],"answer":"a"`),
      "question",
      "question must be a string, got a list",
    ],
    [
      "an empty candidates list",
      line(`"id":"a","question":"q","candidates":[]`),
      "candidates",
      "candidates must hold at least 1 item, got an empty list",
    ],
    [
      "a bad candidate",
      line(`"id":"a","question":"q","candidates":[{"answer":"x"},{"answer":null}]`),
      "candidates[1].answer",
      // A null field of a candidate is left out, as at the top level.
      "candidates[1].answer is missing; expected a string",
    ],
    [
      "a list target holding null",
      line(`"id":"a",${BASE},"target":[1,null]`),
      "target",
      "target is a list, so its items must be strings, numbers or booleans; item [1] is null",
    ],
    [
      "a list target holding a list",
      line(`"id":"a",${BASE},"target":[1,[2]]`),
      "target",
      "target is a list, so its items must be strings, numbers or booleans; item [1] is a list",
    ],
    [
      "a string label",
      line(`"id":"a",${BASE},"label":"yes"`),
      "label",
      'label must be true or false, got "yes"',
    ],
    [
      "tokens past a Postgres integer",
      line(
        `"id":"a",${BASE},"generator":{"model":"m","input_tokens":3000000000,"output_tokens":1}`,
      ),
      "generator.input_tokens",
      "generator.input_tokens must be at most 2147483647, got 3000000000",
    ],
  ])("%s", (_name, text, field, message) => {
    expect(refusal(text)).toEqual({ field, message });
  });

  it("names the field of a number that overflows to Infinity and asks for a string", () => {
    expect(refusal(line(`"id":1e400,${BASE}`))).toEqual({
      field: "id",
      message: "a number too large to read (it overflows to Infinity); write it as a string",
    });
  });
});

describe("parseDatasetLine: what Postgres cannot store is refused, with its path", () => {
  it.each([
    ["NUL in the id", line(`"id":"a\\u0000",${BASE}`), "id", /NUL character/],
    [
      "NUL deep in metadata",
      line(`"id":"a",${BASE},"metadata":{"k":[{"x":["y\\u0000"]}]}`),
      "metadata.k[0].x[0]",
      /NUL character/,
    ],
    [
      "NUL in a key",
      line(`"id":"a",${BASE},"metadata":{"a\\u0000b":1}`),
      'metadata["a\\u0000b"]',
      /this key contains a NUL/,
    ],
    [
      "a lone surrogate in the target",
      line(`"id":"a",${BASE},"target":"\\ud800"`),
      "target",
      /unpaired UTF-16 surrogate/,
    ],
    [
      "a lone low surrogate in a key",
      line(`"id":"a",${BASE},"metadata":{"\\udc00x":1}`),
      'metadata["\\udc00x"]',
      /this key contains an unpaired/,
    ],
    [
      "a lone surrogate in a step",
      line(`"id":"a",${BASE},"steps":["ok","\\udbff"]`),
      "steps[1]",
      /unpaired/,
    ],
    [
      "a __proto__ key",
      line(`"id":"a",${BASE},"metadata":{"__proto__":{"x":1}}`),
      "metadata.__proto__",
      /`__proto__` is not allowed/,
    ],
    [
      "constructor.prototype",
      line(`"id":"a",${BASE},"metadata":{"constructor":{"prototype":{}}}`),
      "metadata.constructor",
      /prototype-pollution/,
    ],
    [
      "an integer past 2^53",
      line(`"id":"a",${BASE},"metadata":{"n":12345678901234567890}`),
      "metadata.n",
      /cannot be read exactly; write it as a string/,
    ],
    [
      "a negative integer past 2^53",
      line(`"id":"a",${BASE},"target":-9007199254740993`),
      "target",
      /beyond ±9007199254740991/,
    ],
    ["a duplicate top-level key", line(`"id":"a","id":"b",${BASE}`), "id", /appears twice/],
    [
      "a duplicate nested key",
      line(`"id":"a",${BASE},"metadata":{"x":[{"k":1},{"k":1,"k" : 2}]}`),
      "metadata.x[1].k",
      /appears twice/,
    ],
    [
      "a duplicate key spelt with an escape",
      line(`"id":"a",${BASE},"metadata":{"k":1,"\\u006b":2}`),
      "metadata.k",
      /appears twice/,
    ],
    ["a zero-width space in the id", line(`"id":"a\u200bb",${BASE}`), "id", /U\+200B/],
    [
      "a bidi override in the task id",
      line(`"id":"a","task_id":"x\u202ey",${BASE}`),
      "task_id",
      /U\+202E/,
    ],
    ["a newline in the id", line(`"id":"a\\nb",${BASE}`), "id", /U\+000A/],
    [
      "an over-long id",
      line(`"id":"${"x".repeat(MAX_ID_LENGTH + 1)}",${BASE}`),
      "id",
      /at most 512 characters/,
    ],
  ])("%s", (_name, text, field, message) => {
    const refused = refusal(text);
    expect(refused.field).toBe(field);
    expect(refused.message).toMatch(message);
  });

  it(`refuses nesting past ${MAX_NESTING_DEPTH} levels without overflowing the stack`, () => {
    const deep = line(`"id":"a",${BASE},"target":"x","metadata":{"k":${nested(10_000)}}`);
    expect(refusal(deep).message).toMatch(/nested deeper than 64 levels/);
    // The line is level 1 and metadata level 2: its value may open 62 more levels.
    expect(parseDatasetLine(line(`"id":"a",${BASE},"metadata":{"k":${nested(62)}}`)).ok).toBe(true);
    expect(parseDatasetLine(line(`"id":"a",${BASE},"metadata":{"k":${nested(63)}}`)).ok).toBe(
      false,
    );
  });

  it("keeps what is odd but storable: bidi text in an answer, colons, escapes, a `constructor` value", () => {
    const text = line(
      `"id":7,"question":"\u202eq: a\\"b\\"","answer":"12:30 \\u00e9","target":["x:y"],"metadata":{"constructor":"c","t":"a:b"}`,
    );
    const parsed = parseDatasetLine(text);
    expect(parsed.ok && parsed.line).toMatchObject({
      id: "7",
      answer: "12:30 é",
      metadata: { constructor: "c", t: "a:b" },
    });
  });

  it("escapes what a message quotes, so that the message itself is storable", () => {
    const refused = refusal(line(`"id":"a",${BASE},"\u202ez\\u0000":1`));
    expect(refused.field).toBe('["\\u202ez\\u0000"]');
    const shown = `${refused.field} ${refused.message}`;
    expect(shown.includes("\u0000") || shown.includes("\u202e")).toBe(false);
  });
});

// Random JSON with keys and strings full of colons, quotes, backslashes, unicode and
// lone surrogates; written with or without spaces and \u escapes.
const awkwardString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(":", '"', "\\", " ", "é", "😀", "\u2028", "u", "{", "}", ","),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 6,
});
const awkwardJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    awkwardString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    tie("object"),
  ),
  object: fc.dictionary(awkwardString, tie("value"), { maxKeys: 4 }),
})).object;
const style = fc.record({ space: fc.constantFrom("", " ", "\t"), escapeUnicode: fc.boolean() });

describe("parseDatasetLine: duplicate keys (property)", () => {
  it("finds a repeated key at any depth, however the text is written, and only then", () => {
    fc.assert(
      fc.property(awkwardJson, style, fc.nat(), (metadata, { space, escapeUnicode }, pick) => {
        const value = { id: "x", question: "q", answer: "a", metadata };
        const objects = objectsIn(value, []).filter(({ object }) => Object.keys(object).length > 0);
        const repeated = objects[pick % objects.length] as (typeof objects)[number];
        const clean = serialize(value, { space, escapeUnicode });
        const twice = serialize(value, { space, escapeUnicode, repeatFirstKeyOf: repeated.object });

        const cleanParse = parseDatasetLine(clean);
        const twiceParse = parseDatasetLine(twice);
        const storable = cleanParse.ok || !/appears twice/.test(cleanParse.message);
        expect(storable).toBe(true);
        // A line refused for a lone surrogate or NUL is refused before the duplicate check.
        if (cleanParse.ok) {
          const key = Object.keys(repeated.object)[0] as string;
          expect(twiceParse).toEqual({
            ok: false,
            field: formatPath([...repeated.path, key]),
            message: expect.stringMatching(/appears twice/),
          });
        }
      }),
      { numRuns: 400 },
    );
  });
});

/** Every object in a value, with its path, outermost first. */
function objectsIn(value: unknown, path: PropertyKey[]): { object: object; path: PropertyKey[] }[] {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value))
    return value.flatMap((item, index) => objectsIn(item, [...path, index]));
  const inner = Object.entries(value).flatMap(([key, item]) => objectsIn(item, [...path, key]));
  return [{ object: value, path }, ...inner];
}
