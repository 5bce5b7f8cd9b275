import { describe, expect, it } from "vitest";
import { sigmoid } from "../src/index.js";

describe("sigmoid", () => {
  it("is 1 / (1 + e^−x)", () => {
    // σ(0.5) = 0.622459...
    expect(sigmoid(0.5)).toBeCloseTo(0.6224593, 6);
    expect(sigmoid(0)).toBe(0.5);
  });

  it("is exactly antisymmetric: σ(−x) is 1 − σ(x) to the last bit", () => {
    // σ(−x) and 1 − σ(x) by two formulas differ in the last bit here.
    expect(sigmoid(-0.3)).toBe(1 - sigmoid(0.3));
  });

  it("does not overflow for large arguments", () => {
    expect(sigmoid(-1000)).toBe(0);
    expect(sigmoid(1000)).toBe(1);
  });
});
