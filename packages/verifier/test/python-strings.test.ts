import { readFileSync } from "node:fs";
import { join } from "node:path";
import { propertyRuns } from "@assay/test-support/property-runs";
import { Template } from "@huggingface/jinja";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PYTHON_WHITESPACE } from "../src/chat/python-whitespace.js";
import { type ChatSpec, renderChat } from "../src/index.js";

// Chat templates strip and split with Python's `str` methods and Jinja's `trim` filter, as
// transformers renders them with jinja2; Assay must give the same strings. The reference is
// made by Python (fixtures/chat/make-fixtures.py): its `str.isspace()` code points, and the
// values jinja2 gives for the calls real templates make, over texts whose edges hold the
// characters where Python and JavaScript whitespace disagree (BOM; NEL, U+001C–U+001F).
interface StringCall {
  expression: string;
  text: string;
  value: string | string[];
}
const python = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "chat", "python-strings.json"), "utf8"),
) as { isspace: number[]; calls: StringCall[] };

/** Generated cases per property (ASSAY_PROPERTY_SCALE multiplies them for a deep run). */
const RUNS = propertyRuns(400);

/** A spec whose template is `template`, rendered with `variables` as chat options. */
function render(template: string, variables: Record<string, unknown>): unknown {
  const spec: ChatSpec = {
    template,
    specialTokens: {},
    options: variables,
    examples: [],
    assistantPrefix: "",
    markers: [],
    date: "2024-07-26",
  };
  return JSON.parse(renderChat(spec, [], false));
}

describe("strings in a chat template are stripped and split as Python's str does", () => {
  it("takes Python's whitespace, as Python itself lists it", () => {
    expect(PYTHON_WHITESPACE).toEqual(python.isspace);
  });

  it("gives every string call the value jinja2 gives it", () => {
    expect(python.calls).toHaveLength(220);
    for (const call of python.calls) {
      const value = render(`{{ (${call.expression}) | tojson }}`, { text: call.text });
      expect({ ...call, value }).toEqual(call);
    }
  });

  it("covers, for each call it makes Pythonic, texts @huggingface/jinja alone renders otherwise", () => {
    const differs = new Set<string>();
    for (const call of python.calls) {
      let value: unknown;
      try {
        value = JSON.parse(
          new Template(`{{ (${call.expression}) | tojson }}`).render({ text: call.text }),
        );
      } catch {
        value = undefined; // the library refuses the call (`trim` with an argument)
      }
      if (JSON.stringify(value) !== JSON.stringify(call.value)) {
        differs.add(call.expression.replace(/\(.*/, "").replace("text | ", "| "));
      }
    }
    expect([...differs].sort()).toEqual(
      ["text.lstrip", "text.rstrip", "text.split", "text.strip", "| trim"].sort(),
    );
  });
});

describe("a call Python refuses", () => {
  it("fails the render with Python's reason, naming the method", () => {
    const refusals: [string, string][] = [
      ["{{ text.strip(1) }}", "strip() argument must be a string or none, got 1 (number)"],
      ["{{ text.lstrip(chars='x') }}", "lstrip() takes no keyword arguments"],
      ["{{ text.rstrip('a', 'b') }}", "rstrip() takes at most 1 argument (2 given)"],
      ["{{ text | trim(width=1) }}", "trim() got an unexpected keyword argument 'width'"],
      ["{{ text.split('') }}", "split(): empty separator"],
      [
        "{{ text.split(',', maxsplit=1, sep=',') }}",
        "split() got multiple values for argument 'sep'",
      ],
      ["{{ missing.strip() }}", ".strip() needs a string, got none"],
    ];
    for (const [template, reason] of refusals) {
      expect(() => render(template, { text: "a,b" }), template).toThrow(reason);
    }
  });
});

// The same rule as a property: for any text over the characters that matter (every Python
// whitespace code point, BOM, letters, a comma, an emoji and its two halves alone) and any
// `chars`, the result is Python's, written here from its definition over code points.
const isspace = new Set(python.isspace);
const alphabet = [
  ...python.isspace.map((c) => String.fromCodePoint(c)),
  "\ufeff",
  "a",
  "b",
  ",",
  "🙂",
  "\ud83d",
  "\ude42",
];
const text = fc
  .array(fc.constantFrom(...alphabet), { maxLength: 12 })
  .map((chars) => chars.join(""));

function pythonStrip(value: string, chars: string | null, left: boolean, right: boolean): string {
  const points = Array.from(value);
  const strips = (point: string) =>
    chars === null
      ? isspace.has(point.codePointAt(0) as number)
      : Array.from(chars).includes(point);
  let start = 0;
  let end = points.length;
  while (left && start < end && strips(points[start] as string)) start++;
  while (right && end > start && strips(points[end - 1] as string)) end--;
  return points.slice(start, end).join("");
}

function pythonSplit(value: string, sep: string | null, maxsplit: number): string[] {
  if (sep !== null) {
    const pieces: string[] = [];
    let rest = value;
    for (
      let at = rest.indexOf(sep);
      at >= 0 && (maxsplit < 0 || pieces.length < maxsplit);
      at = rest.indexOf(sep)
    ) {
      pieces.push(rest.slice(0, at));
      rest = rest.slice(at + sep.length);
    }
    return [...pieces, rest];
  }
  const space = `[${python.isspace.map((c) => `\\u{${c.toString(16)}}`).join("")}]`;
  const words: string[] = [];
  let rest = value.replace(new RegExp(`^${space}+`, "u"), "");
  while (rest !== "") {
    if (maxsplit >= 0 && words.length === maxsplit) return [...words, rest];
    const word = new RegExp(`^(?:(?!${space}).)+`, "su").exec(rest)?.[0] as string;
    words.push(word);
    rest = rest.slice(word.length).replace(new RegExp(`^${space}+`, "u"), "");
  }
  return words;
}

describe("for any text and characters", () => {
  const STRIPS =
    "{{ [text.strip(), text.lstrip(), text.rstrip(), text | trim," +
    " text.strip(chars), text.lstrip(chars), text.rstrip(chars), text | trim(chars)] | tojson }}";

  it("strip, lstrip, rstrip and trim, with and without chars, take what Python takes", () => {
    fc.assert(
      fc.property(text, fc.option(text, { nil: null }), (value, chars) => {
        const ends = [
          [true, true],
          [true, false],
          [false, true],
          [true, true],
        ] as const;
        expect(render(STRIPS, { text: value, chars })).toEqual([
          ...ends.map(([left, right]) => pythonStrip(value, null, left, right)),
          ...ends.map(([left, right]) => pythonStrip(value, chars, left, right)),
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it("split, on whitespace or a separator, with or without maxsplit, gives Python's pieces", () => {
    const SPLITS =
      "{{ [text.split(), text.split(none, n), text.split(sep), text.split(sep, n)] | tojson }}";
    fc.assert(
      fc.property(
        text,
        text.filter((sep) => sep !== ""),
        fc.integer({ min: -2, max: 4 }),
        (value, sep, n) => {
          expect(render(SPLITS, { text: value, sep, n })).toEqual([
            pythonSplit(value, null, -1),
            pythonSplit(value, null, n),
            pythonSplit(value, sep, -1),
            pythonSplit(value, sep, n),
          ]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
