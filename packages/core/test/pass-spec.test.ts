import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RunSpecSchema } from "../src/index.js";

// The spec's pass rule: thresholds in [0, 1], and the selection's check scorer keeps its
// own (`selection.threshold`), so one scorer never has two rules.

describe("the spec's pass rule", () => {
  it("takes a threshold per scorer and a deciding scorer", () => {
    const spec = RunSpecSchema.parse({ pass: { scorers: { f1: 1 }, solved_by: "f1" } });
    expect(spec.pass).toEqual({ threshold: 0.5, scorers: { f1: 1 }, solved_by: "f1" });
  });

  it("leaves a spec without `pass` as it was (its stored hash does not change)", () => {
    expect("pass" in RunSpecSchema.parse({})).toBe(false);
  });

  it("refuses a threshold outside [0, 1], naming the field", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
          fc.double({ min: 1.0000001, noNaN: true }),
        ),
        (threshold) => {
          const result = RunSpecSchema.safeParse({ pass: { scorers: { f1: threshold } } });
          expect(result.success).toBe(false);
          expect(result.error?.issues[0]?.path).toEqual(["pass", "scorers", "f1"]);
        },
      ),
    );
  });

  it("refuses a pass rule for the selection's check scorer", () => {
    const result = RunSpecSchema.safeParse({
      selection: { verifier: "judge", check: "exact", threshold: 1 },
      pass: { scorers: { exact: 0.5 } },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["pass", "scorers", "exact"]);
    expect(result.error?.issues[0]?.message).toContain("selection.threshold");
  });
});
