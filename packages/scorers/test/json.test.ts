import { SpecError } from "@assay/core";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../src/index.js";
import { score, scoreValue } from "./helpers.js";

const person = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name", "age"],
};

describe("json", () => {
  it("scores 1 for any JSON when no schema is given", async () => {
    expect(await scoreValue("json", {}, ' {"a": [1, 2]} ')).toBe(1);
    expect(await scoreValue("json", {}, "42")).toBe(1);
  });

  it("leaves non-JSON unscored as unparseable, not 0", async () => {
    expect(await score("json", {}, "{'a': 1}")).toMatchObject({
      status: "unscored",
      reason: "unparseable",
    });
  });

  it("reads a fenced block by default, and only the whole answer with extract=whole", async () => {
    const answer = 'Here you go:\n```json\n{"name": "Ada", "age": 36}\n```\nAnything else?';
    expect(await scoreValue("json", { schema: person }, answer)).toBe(1);
    expect(await score("json", { extract: "whole" }, answer)).toMatchObject({
      reason: "unparseable",
    });
  });

  it("extract=first_object finds the first balanced object that parses", async () => {
    const answer = 'Use {braces} like this: {"name": "Ada}", "age": 36} and done.';
    expect(await scoreValue("json", { schema: person, extract: "first_object" }, answer)).toBe(1);
    expect(await score("json", { extract: "first_object" }, "no object {here")).toMatchObject({
      reason: "unparseable",
    });
  });

  it("scores 0 when the JSON fails the schema and lists every error with its path", async () => {
    const result = await score("json", { schema: person }, '{"name": 7, "age": -1}');
    expect(result).toEqual({
      status: "scored",
      value: 0,
      detail: { errors: ["/name: must be string", "/age: must be >= 0"] },
    });
  });

  it("can take the schema from the sample's target", async () => {
    const args = { schema_from_target: true };
    expect(await scoreValue("json", args, '{"name": "Ada", "age": 36}', person)).toBe(1);
    expect(await scoreValue("json", args, '{"name": "Ada"}', person)).toBe(0);
    expect(await score("json", args, "{}", { type: "nonsense" })).toMatchObject({
      reason: "invalid_target",
    });
    expect(await score("json", args, "{}", "a string")).toMatchObject({ reason: "invalid_target" });
  });

  it("runs schema patterns on RE2, so a backtracking pattern cannot hang the worker", async () => {
    const schema = { type: "string", pattern: "^(a+)+$" };
    const answer = JSON.stringify(`${"a".repeat(30_000)}b`);
    const started = performance.now();
    expect(await score("json", { schema }, answer)).toMatchObject({
      value: 0,
      detail: { errors: ['/: must match pattern "^(a+)+$"'] },
    });
    // A backtracking engine never finishes on it; linear time takes milliseconds, so the
    // bound stays far above what a busy machine adds.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(await scoreValue("json", { schema }, '"aaa"')).toBe(1);
  });

  it("refuses a schema pattern RE2 cannot run", async () => {
    const schema = { type: "string", pattern: "^(?!x)" };
    expect(await score("json", { schema_from_target: true }, '"a"', schema)).toMatchObject({
      reason: "invalid_target",
      message: expect.stringContaining("lookahead and lookbehind are not supported"),
    });
  });

  it("lets different schemas share an $id", async () => {
    const args = { schema_from_target: true };
    expect(await scoreValue("json", args, '"x"', { $id: "same", type: "string" })).toBe(1);
    expect(await scoreValue("json", args, '"x"', { $id: "same", type: "number" })).toBe(0);
  });

  it("checks uniqueItems over a 20,000-object answer, key order not mattering", async () => {
    const schema = { type: "array", uniqueItems: true };
    const items = Array.from({ length: 20_000 }, (_, index) => ({ id: index, tags: ["a"] }));
    const started = performance.now();
    expect(await scoreValue("json", { schema }, JSON.stringify(items))).toBe(1);
    // Comparing every pair took ~30 s here; one lookup per item takes well under a second,
    // so the bound stays far above what a busy machine adds.
    expect(performance.now() - started).toBeLessThan(10_000);
    // The same object with its keys in another order is a duplicate (JSON Schema equality).
    const repeated = [...items, { tags: ["a"], id: 7 }];
    expect(await score("json", { schema }, JSON.stringify(repeated))).toEqual({
      status: "scored",
      value: 0,
      detail: { errors: ["/: must NOT have duplicate items (items ## 7 and 20000 are identical)"] },
    });
    expect(await scoreValue("json", { schema }, "[1, 1.0]")).toBe(0);
    expect(await scoreValue("json", { schema }, '[[1, {"a": 2}], [1, {"a": 3}]]')).toBe(1);
    expect(await scoreValue("json", { schema: { uniqueItems: false } }, "[1, 1]")).toBe(1);
  });

  it("accepts a recursive schema ($ref to the root) from the target and applies it at depth", async () => {
    const tree = {
      type: "object",
      properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["value"],
    };
    const args = { schema_from_target: true };
    const valid = { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] };
    expect(await scoreValue("json", args, JSON.stringify(valid), tree)).toBe(1);
    const invalid = { value: 1, children: [{ value: 2, children: [{ value: "3" }] }] };
    expect(await score("json", args, JSON.stringify(invalid), tree)).toMatchObject({
      value: 0,
      detail: { errors: ["/children/0/children/0/value: must be integer"] },
    });
    expect(await scoreValue("json", { schema: tree }, '{"children": [{}]}')).toBe(0);
  });

  it("leaves a self-referring schema unscored as timeout instead of throwing", async () => {
    expect(await score("json", { schema_from_target: true }, "{}", { $ref: "#" })).toMatchObject({
      status: "unscored",
      reason: "timeout",
      message: expect.stringContaining("refers to itself without descending into the answer"),
    });
  });

  it("bounds a recursive schema whose branches re-check the same subtree", async () => {
    // Each level tries the first branch (which checks the whole child, then fails on
    // `required`) and then the second: 2^depth calls, unbounded without a budget.
    const doubling = {
      anyOf: [
        { properties: { next: { $ref: "#" } }, required: ["never"] },
        { properties: { next: { $ref: "#" } } },
      ],
    };
    let answer: unknown = {};
    for (let depth = 0; depth < 40; depth++) answer = { next: answer };
    expect(await score("json", { schema: doubling }, JSON.stringify(answer))).toMatchObject({
      status: "unscored",
      reason: "timeout",
      message: expect.stringContaining("validator calls"),
    });
    // The spent budget is not charged to the next schema's compilation.
    const fresh = { type: "object", properties: { after: { type: "string" } } };
    expect(await scoreValue("json", { schema_from_target: true }, '{"after": "x"}', fresh)).toBe(1);
    expect(await scoreValue("json", { schema: doubling }, '{"next": {"next": {}}}')).toBe(1);
  });

  it("rejects an invalid schema in args when the spec loads", () => {
    const validate = () =>
      defaultRegistry().validate(
        { name: "json", args: { schema: { type: 5 } } },
        "default scorer #1 (json)",
        "spec.yaml",
      );
    expect(validate).toThrow(SpecError);
    expect(validate).toThrow(
      /spec\.yaml: default scorer #1 \(json\): .*`args\.schema`: invalid JSON Schema/,
    );
  });
});
