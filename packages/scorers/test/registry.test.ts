import {
  type RunSpec,
  type ScorerDefinition,
  SpecError,
  scored,
  UnrecoverableJobError,
} from "@assay/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultRegistry, deterministicScorers, ScorerRegistry } from "../src/index.js";
import { sampleOf } from "./helpers.js";

function specError(run: () => void): SpecError {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error("expected a SpecError");
}

const spec = (scorers: RunSpec["rules"][number]["scorers"]): RunSpec => ({
  rules: [{ name: "mcq", when: { target_type: "string" }, scorers }],
});

describe("ScorerRegistry", () => {
  const registry = new ScorerRegistry();

  it("knows every deterministic scorer, on the CPU pool", () => {
    expect(registry.names()).toEqual([
      "answer",
      "choice",
      "exact",
      "f1",
      "includes",
      "json",
      "match",
      "numeric",
      "pattern",
      "tool_call",
    ]);
    for (const definition of deterministicScorers) expect(registry.poolOf(definition)).toBe("cpu");
    expect(registry.get("f1")?.description).toContain("F1");
    expect(registry.get("nope")).toBeUndefined();
  });

  it("returns parsed args with defaults", () => {
    expect(registry.validate({ name: "match", args: {} }, "x")).toEqual({
      location: "end",
      ignore_case: true,
      ignore_punctuation: true,
    });
  });

  it("names the rule and lists known scorers for an unknown scorer", () => {
    const error = specError(() =>
      registry.validateSpec(
        spec([
          { name: "exact", args: {} },
          { name: "exactly", args: {} },
        ]),
        "spec.yaml",
      ),
    );
    expect(error.file).toBe("spec.yaml");
    expect(error.where).toBe('rule "mcq" scorer #2 (exactly)');
    expect(error.message).toContain(
      'unknown scorer "exactly"; known scorers: answer, choice, exact, f1',
    );
  });

  it("names the field for bad args", () => {
    const error = specError(() =>
      registry.validateSpec(spec([{ name: "match", args: { location: "middle" } }]), "spec.yaml"),
    );
    expect(error.message).toMatch(/bad args for scorer "match": `args\.location`: .*"begin"/);
  });

  it("names an unknown argument and lists the known ones", () => {
    const error = specError(() =>
      registry.validate({ name: "includes", args: { ignorecase: false } }, "scorers[0]"),
    );
    expect(error.message).toBe(
      'run spec: scorers[0]: bad args for scorer "includes": unknown argument `ignorecase`; known arguments: ignore_case',
    );
  });

  it("checks the default's scorers too", () => {
    const error = specError(() =>
      registry.validateSpec(
        { rules: [], default: { scorers: [{ name: "answer", args: { pattern: "WORDS" } }] } },
        "s.json",
      ),
    );
    expect(error.where).toBe("default scorer #1 (answer)");
  });

  it("refuses two scorers with the same result key in one rule", () => {
    const twice = spec([
      { name: "match", args: {} },
      { name: "match", args: { location: "any" } },
    ]);
    expect(specError(() => registry.validateSpec(twice, "s.yaml")).message).toContain(
      'result key "match" is used twice',
    );
    const keyed = spec([
      { name: "match", args: {} },
      { name: "match", args: { location: "any" }, key: "match_any" },
    ]);
    expect(() => registry.validateSpec(keyed, "s.yaml")).not.toThrow();
  });

  it("builds a scorer once per name and args", () => {
    expect(registry.create({ name: "match", args: {} })).toBe(
      registry.create({ name: "match", args: {} }),
    );
    expect(registry.create({ name: "match", args: {} })).not.toBe(
      registry.create({ name: "match", args: { location: "any" } }),
    );
  });

  it("refuses to build an unknown or misconfigured scorer with an unretryable error", () => {
    expect(() => registry.create({ name: "nope", args: {} })).toThrow(UnrecoverableJobError);
    expect(() => registry.create({ name: "pattern", args: { regex: "(a)\\1" } })).toThrow(
      UnrecoverableJobError,
    );
    expect(() => registry.poolOf({ name: "nope" })).toThrow(/known scorers/);
  });

  it("adds scorers passed in, and refuses a duplicate name", async () => {
    const always: ScorerDefinition<{ value: number }> = {
      name: "always",
      pool: "gpu",
      description: "test scorer",
      args: z.strictObject({ value: z.number().default(1) }),
      create: (args) => async () => scored(args.value),
    };
    const extended = new ScorerRegistry([always as ScorerDefinition<unknown>]);
    expect(extended.poolOf({ name: "always" })).toBe("gpu");
    expect(
      await extended.create({ name: "always", args: { value: 0.5 } })(sampleOf("x"), {}),
    ).toEqual(scored(0.5));
    expect(
      () => new ScorerRegistry([{ ...always, name: "f1" } as ScorerDefinition<unknown>]),
    ).toThrow(/two scorers are named "f1"/);
  });

  it("shares one default registry", () => {
    expect(defaultRegistry()).toBe(defaultRegistry());
  });
});
