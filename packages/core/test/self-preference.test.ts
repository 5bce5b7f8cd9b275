import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SELF_PREFERENCE_THRESHOLD,
  type SelfPreferenceCell,
  selfPreference,
} from "../src/report/self-preference.js";

const cell = (generator: string, label: boolean, mean: number, answers: number) => ({
  generator,
  label,
  sum: mean * answers,
  answers,
});

describe("selfPreference", () => {
  it("sees no preference when both families get the same mean per correctness, however many of each", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 4, maxLength: 4 }),
        (correctMean, incorrectMean, [a = 1, b = 1, c = 1, d = 1]) => {
          // The own family answers right far more often: that alone is no preference.
          const cells: SelfPreferenceCell[] = [
            cell("Qwen3-8B", true, correctMean, a * 10),
            cell("qwen2.5-72b", false, incorrectMean, b),
            cell("llama-3.1-8b", true, correctMean, c),
            cell("gpt-4o-mini", false, incorrectMean, d * 10),
          ];
          const result = selfPreference("verifier", "qwen", cells);
          expect(result.gap).toBeCloseTo(0, 9);
          expect(result.warning).toBe(false);
          expect(result.sameFamily.correct.answers).toBe(a * 10);
        },
      ),
    );
  });

  it("warns when the verifier scores its own family's answers higher at equal correctness", () => {
    const cells = [
      cell("qwen3", true, 0.9, 10),
      cell("qwen3", false, 0.5, 10),
      cell("llama", true, 0.8, 10),
      cell("llama", false, 0.4, 10),
    ];
    const result = selfPreference("verifier", "Qwen", cells);
    expect(result.gap).toBeCloseTo(0.1, 12);
    expect(result.gap).toBeGreaterThan(SELF_PREFERENCE_THRESHOLD);
    expect(result.warning).toBe(true);
  });

  it("has no gap when a group is empty", () => {
    const result = selfPreference("verifier", "qwen", [cell("qwen3", true, 0.9, 3)]);
    expect(result.gap).toBeNull();
    expect(result.warning).toBe(false);
    expect(result.otherFamily.incorrect).toEqual({ answers: 0, mean: null });
  });
});
