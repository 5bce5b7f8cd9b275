import { RunSpecSchema, type Sample } from "@assay/core";
import { sample as sampleWithId } from "@assay/test-support/samples";
import { describe, expect, it } from "vitest";
import { createRouter } from "../src/index.js";

const spec = RunSpecSchema.parse({
  rules: [
    { name: "mcq", when: { "metadata.kind": "mcq" }, scorers: [{ name: "choice" }] },
    { name: "numbers", when: { target_type: "number" }, scorers: [{ name: "numeric" }] },
    { name: "deep", when: { "metadata.source.split": ["dev", "test"] }, scorers: [{ name: "f1" }] },
  ],
  default: { scorers: [{ name: "exact" }] },
});

function sample(overrides: Partial<Sample>): Sample {
  return sampleWithId("s", overrides);
}

describe("createRouter", () => {
  const route = createRouter(spec);

  it("routes by metadata value and records the rule", () => {
    expect(route(sample({ metadata: { kind: "mcq" }, target: 3 }))?.rule).toBe("mcq");
  });

  it("checks rules in order: the first match wins", () => {
    const routed = route(sample({ metadata: { kind: "mcq" }, target: 3 }));
    expect(routed?.scorers.map((s) => s.name)).toEqual(["choice"]);
  });

  it("routes by target type", () => {
    expect(route(sample({ target: 42 }))?.rule).toBe("numbers");
  });

  it("matches nested metadata against a list of accepted values", () => {
    expect(route(sample({ metadata: { source: { split: "test" } } }))?.rule).toBe("deep");
    expect(route(sample({ metadata: { source: { split: "train" } } }))?.rule).toBe("default");
  });

  it("lets a sample's own scorers override routing", () => {
    const own = [{ name: "includes", args: {} }];
    expect(route(sample({ scorers: own, target: 42 }))).toEqual({ rule: "sample", scorers: own });
  });

  it("leaves a sample unrouted when nothing matches and there is no default", () => {
    const strict = createRouter(RunSpecSchema.parse({ rules: spec.rules }));
    expect(strict(sample({ target: "text" }))).toBeUndefined();
  });
});
