import { type Sample, SpecError } from "@assay/core";
import { ScorerRegistry } from "@assay/scorers";
import { sample as sampleWithId } from "@assay/test-support/samples";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRouter, parseSpec } from "../src/index.js";

// A spec is input like a dataset line: a key written twice, a key every JavaScript object
// inherits (`valueOf`, `hasOwnProperty`, `__proto__`) or a field no sample has is refused
// with the file and the key, or the spec routes exactly as written. Never a crash.
const registry = new ScorerRegistry();

/** Names every object answers to: `constructor`, `hasOwnProperty`, `__proto__`, ... */
const INHERITED = Object.getOwnPropertyNames(Object.prototype);
const ROUTABLE = ["target_type", "id", "task_id", "candidate_index", "has_label", "label"];
const METADATA_KEYS = ["kind", "split", ...INHERITED.filter((key) => key !== "__proto__")];
const VALUES = ["mcq", "x", 1, 0, true, false, null] as const;
type Scalar = (typeof VALUES)[number];

const TARGETS: [Sample["target"], string][] = [
  [undefined, "none"],
  ["text", "string"],
  [3, "number"],
  [["a"], "list"],
  [{ a: 1 }, "object"],
];

interface GeneratedRule {
  name: string;
  when: [string, Scalar | Scalar[]][];
  args: [string, boolean][];
}

const scalar = fc.constantFrom(...VALUES);
// Mostly fields a rule may match on, so that many specs load and their routing is checked.
const whenKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ROUTABLE) },
  { weight: 1, arbitrary: fc.constantFrom(...INHERITED) },
  { weight: 3, arbitrary: fc.constantFrom(...METADATA_KEYS).map((key) => `metadata.${key}`) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...METADATA_KEYS), fc.constantFrom(...METADATA_KEYS))
      .map(([outer, inner]) => `metadata.${outer}.${inner}`),
  },
);
const argKey = fc.oneof(
  { weight: 4, arbitrary: fc.constant("ignore_case") },
  { weight: 1, arbitrary: fc.constantFrom(...INHERITED) },
);
// Few keys, so that a key written twice is common.
const rule = fc.record({
  name: fc.constantFrom("a", "constructor", "__proto__", "toString"),
  when: fc.array(
    fc.tuple(whenKey, fc.oneof(scalar, fc.array(scalar, { minLength: 1, maxLength: 3 }))),
    { maxLength: 3 },
  ),
  args: fc.array(fc.tuple(argKey, fc.boolean()), { maxLength: 2 }),
});
const spec = fc.record({
  rules: fc
    .array(rule, { maxLength: 4 })
    .map((rules) => rules.map((r, index) => ({ ...r, name: `${r.name}-${index}` }))),
  withDefault: fc.boolean(),
  format: fc.constantFrom("json", "yaml"),
});

const metadataValue: fc.Arbitrary<unknown> = fc.oneof(
  scalar,
  fc.dictionary(fc.constantFrom(...METADATA_KEYS), scalar, { maxKeys: 3 }),
);
const sample = fc
  .record({
    target: fc.constantFrom(...TARGETS),
    label: fc.constantFrom(undefined, true, false),
    metadata: fc.dictionary(fc.constantFrom(...METADATA_KEYS), metadataValue, { maxKeys: 4 }),
  })
  .map(({ target, label, metadata }) =>
    sampleWithId("s-1", {
      target: target[0],
      ...(label === undefined ? {} : { label }),
      // Through JSON, as a dataset line arrives: `constructor` is then an own key.
      metadata: JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>,
    }),
  );

/** JSON text written by hand, so that it can hold a key twice; JSON is YAML too. */
function specText(rules: GeneratedRule[], withDefault: boolean): string {
  const entries = (pairs: [string, unknown][]) =>
    `{${pairs.map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(", ")}}`;
  const ruleText = rules.map(
    (r) =>
      `{"name": ${JSON.stringify(r.name)}, "when": ${entries(r.when)}, "scorers": [{"name": "includes", "args": ${entries(r.args)}}]}`,
  );
  const fallback = withDefault ? `, "default": {"scorers": [{"name": "exact"}]}` : "";
  return `{"rules": [\n${ruleText.join(",\n")}\n]${fallback}}\n`;
}

/** What a correct loader must refuse the spec for: each problem and the key it names. */
function problems(rules: GeneratedRule[]): { key: string; says: RegExp }[] {
  const found: { key: string; says: RegExp }[] = [];
  for (const r of rules) {
    for (const pairs of [r.when, r.args]) {
      const keys = pairs.map(([key]) => key);
      for (const key of keys.filter((key, index) => keys.indexOf(key) !== index)) {
        found.push({ key, says: /appears twice/ });
      }
      if (keys.includes("__proto__")) found.push({ key: "__proto__", says: /`__proto__`/ });
    }
    for (const [key] of r.when) {
      if (!ROUTABLE.includes(key) && !key.startsWith("metadata.")) {
        found.push({ key, says: /cannot match on/ });
      }
    }
    for (const [key] of r.args) {
      if (key !== "ignore_case") found.push({ key, says: /unknown argument/ });
    }
  }
  return found;
}

/** The rule that should route `s`, written from docs/cli.md, not from the router. */
function expectedRule(rules: GeneratedRule[], withDefault: boolean, s: Sample): string | undefined {
  const fieldOf = (path: string): unknown => {
    switch (path) {
      case "target_type":
        return TARGETS.find(([target]) => target === s.target)?.[1];
      case "id":
        return s.id;
      case "task_id":
        return s.taskId;
      case "candidate_index":
        return s.candidateIndex;
      case "has_label":
        return s.label !== undefined;
      case "label":
        return s.label ?? null;
    }
    let value: unknown = s.metadata;
    for (const key of path.slice("metadata.".length).split(".")) {
      const own = typeof value === "object" && value !== null && Object.hasOwn(value, key);
      if (!own) return null;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
  const match = rules.find((r) =>
    r.when.every(([path, expected]) => {
      const actual = fieldOf(path);
      return Array.isArray(expected) ? expected.some((e) => e === actual) : expected === actual;
    }),
  );
  return match?.name ?? (withDefault ? "default" : undefined);
}

describe("a run spec is checked as a dataset line is", () => {
  it("refuses hostile and repeated keys naming the file and the key, or routes as written", () => {
    fc.assert(
      fc.property(spec, fc.array(sample, { minLength: 1, maxLength: 5 }), (generated, samples) => {
        const { rules, withDefault, format } = generated;
        const file = `generated.${format}`;
        const expected = problems(rules);
        let loaded: ReturnType<typeof parseSpec>;
        try {
          loaded = parseSpec(specText(rules, withDefault), file, registry);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(SpecError);
          const message = (error as SpecError).message;
          expect(message.startsWith(`${file}: `), message).toBe(true);
          const named = expected.some((p) => p.says.test(message) && message.includes(p.key));
          expect(named, `${message}\nexpected one of ${JSON.stringify(expected)}`).toBe(true);
          return;
        }
        expect(expected, "accepted a spec that should be refused").toEqual([]);
        const route = createRouter(loaded);
        for (const s of samples) {
          expect(route(s)?.rule, JSON.stringify(s.metadata)).toBe(
            expectedRule(rules, withDefault, s),
          );
        }
      }),
      { numRuns: 600 },
    );
  });

  it.each([
    [
      "json",
      '{"default": {"scorers": [{"name": "exact"}]},\n "default": {"scorers": [{"name": "f1"}]}}',
    ],
    ["yaml", "default: { scorers: [{ name: exact }] }\ndefault: { scorers: [{ name: f1 }] }\n"],
    ["yaml", 'rules:\n  - name: r\n    when: { 1: mcq, "1": x }\n    scorers: [{ name: exact }]\n'],
  ])("refuses a key written twice in %s, naming it", (format, text) => {
    expect(() => parseSpec(text, `twice.${format}`, registry)).toThrow(
      new RegExp(`^twice\\.${format}: .*: this key appears twice in one object`),
    );
  });

  it.each(["hasOwnProperty", "valueOf", "constructor", "toString", "isPrototypeOf"])(
    "refuses a rule matching on `%s`, which every object inherits, naming it",
    (key) => {
      const text = `rules:\n  - name: r\n    when: { ${key}: 1 }\n    scorers: [{ name: exact }]\n`;
      expect(() => parseSpec(text, "inherited.yaml", registry)).toThrow(
        `inherited.yaml: rule "r" when: cannot match on \`${key}\``,
      );
    },
  );

  it("refuses `__proto__` anywhere in a spec, which would otherwise drop the condition", () => {
    const text =
      "rules:\n  - name: r\n    when: { __proto__: mcq }\n    scorers: [{ name: exact }]\n";
    expect(() => parseSpec(text, "proto.yaml", registry)).toThrow(
      /^proto\.yaml: rule "r" when\.__proto__: the key `__proto__` is not allowed/,
    );
  });

  it("refuses what a dataset line may not hold: NaN, infinities, NUL", () => {
    for (const [value, says] of [
      [".nan", /NaN/],
      [".inf", /Infinity/],
      ['"a\\0b"', /NUL/],
    ] as const) {
      const text = `rules:\n  - name: r\n    when: { id: ${value} }\n    scorers: [{ name: exact }]\n`;
      expect(() => parseSpec(text, "values.yaml", registry)).toThrow(says);
    }
  });

  it("names an unknown field without a dataset line's advice (a spec has no `metadata`)", () => {
    const text = "rulez: []\ndefault: { scorers: [{ name: exact }] }\n";
    expect(() => parseSpec(text, "typo.yaml", registry)).toThrow(
      /^typo\.yaml: spec: unknown field `rulez`$/,
    );
  });

  it("matches `metadata.constructor` only on a sample's own field of that name", () => {
    const route = createRouter(
      parseSpec(
        "rules: [{ name: own, when: { metadata.constructor: x }, scorers: [{ name: exact }] }]\n",
        "own.yaml",
        registry,
      ),
    );
    expect(route(sampleWithId("a", { metadata: JSON.parse('{"constructor": "x"}') }))?.rule).toBe(
      "own",
    );
    expect(route(sampleWithId("b", { metadata: {} }))).toBeUndefined();
  });
});
