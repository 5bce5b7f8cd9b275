import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SELF_PREFERENCE_MIN_ANSWERS,
  SELF_PREFERENCE_THRESHOLD,
  type SelfPreferenceCell,
  selfPreference,
} from "../src/report/self-preference.js";

/** `answers` answers that all got the verifier score `value`. */
const cell = (generator: string, label: boolean, value: number, answers: number) => ({
  generator,
  label,
  value,
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
    const n = SELF_PREFERENCE_MIN_ANSWERS;
    const cells = [
      cell("qwen3", true, 0.9, n),
      cell("qwen3", false, 0.5, n),
      cell("llama", true, 0.8, n),
      cell("llama", false, 0.4, n),
    ];
    const result = selfPreference("verifier", "Qwen", cells);
    expect(result.gap).toBeCloseTo(0.1, 12);
    expect(result.gap).toBeGreaterThan(SELF_PREFERENCE_THRESHOLD);
    // Every answer of a group got the same score: no resample moves the gap.
    expect(result.low).toBeCloseTo(0.1, 12);
    expect(result.high).toBeCloseTo(0.1, 12);
    expect(result.enoughAnswers).toBe(true);
    expect(result.warning).toBe(true);
  });

  it("does not warn on a group with fewer answers than the minimum, however large the gap", () => {
    const n = SELF_PREFERENCE_MIN_ANSWERS;
    const cells = [
      cell("qwen3", true, 0.9, n),
      cell("qwen3", false, 0.9, n - 1),
      cell("llama", true, 0.1, n),
      cell("llama", false, 0.1, n),
    ];
    const result = selfPreference("verifier", "qwen", cells);
    expect(result.gap).toBeCloseTo(0.8, 12);
    expect(result.enoughAnswers).toBe(false);
    expect(result.warning).toBe(false);
  });

  it("gives an interval around the gap that holds 0 when the groups overlap, the same on every call", () => {
    const n = 2 * SELF_PREFERENCE_MIN_ANSWERS;
    const spread = (generator: string, label: boolean, shift: number) =>
      Array.from({ length: n }, (_, i) => cell(generator, label, (i % 10) / 10 + shift, 1));
    const cells = [
      ...spread("qwen3", true, 0.02),
      ...spread("qwen3", false, 0.08),
      ...spread("llama", true, 0),
      ...spread("llama", false, 0),
    ];
    const result = selfPreference("verifier", "qwen", cells);
    expect(result.gap).toBeCloseTo(0.05, 9);
    expect(result.low).toBeLessThan(0);
    expect(result.high).toBeGreaterThan(result.gap ?? Number.NaN);
    expect(result.warning).toBe(false);
    expect(selfPreference("verifier", "qwen", cells)).toEqual(result);
    expect(selfPreference("verifier", "qwen", cells, { bootstrap: { seed: 2 } }).low).not.toBe(
      result.low,
    );
  });

  it("has no gap when a group is empty", () => {
    const result = selfPreference("verifier", "qwen", [cell("qwen3", true, 0.9, 3)]);
    expect(result.gap).toBeNull();
    expect(result.low).toBeNull();
    expect(result.warning).toBe(false);
    expect(result.otherFamily.incorrect).toEqual({ answers: 0, mean: null });
  });
});
