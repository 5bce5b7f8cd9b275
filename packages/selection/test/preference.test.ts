import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { preferenceProbability } from "../src/index.js";

describe("Bradley–Terry preference", () => {
  it("is σ(R_A − R_B)", () => {
    // σ(0.5) = 1 / (1 + e^−0.5) = 0.622459...
    expect(preferenceProbability(0.8, 0.3)).toBeCloseTo(0.6224593, 6);
    expect(preferenceProbability(0.3, 0.8)).toBeCloseTo(1 - 0.6224593, 6);
    expect(preferenceProbability(0.5, 0.5)).toBe(0.5);
  });

  it("sharpens with a scale without changing the winner", () => {
    // σ(10 · 0.5) = σ(5) = 0.993307...
    expect(preferenceProbability(0.8, 0.3, 10)).toBeCloseTo(0.9933071, 6);
  });

  it("is exactly antisymmetric: P(b beats a) is 1 − P(a beats b) to the last bit", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        (a, b, scale) => {
          expect(preferenceProbability(b, a, scale)).toBe(1 - preferenceProbability(a, b, scale));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
