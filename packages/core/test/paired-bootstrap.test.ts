import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pairedBootstrap } from "../src/stats/paired-bootstrap.js";
import { seededRandom } from "../src/stats/seeded-random.js";

// Small resample counts keep a property run (100 cases) well under a second.
const options = { resamples: 200, seed: 7 };
const value = fc.double({ min: -1, max: 1, noNaN: true });
const values = fc.array(value, { minLength: 1, maxLength: 60 });
/** Two runs over the same tasks. */
const pairs = values.chain((current) =>
  fc.tuple(
    fc.constant(current),
    fc.array(value, { minLength: current.length, maxLength: current.length }),
  ),
);

describe("pairedBootstrap", () => {
  it("identical runs: difference 0 and an interval of exactly [0, 0], not marked", () => {
    fc.assert(
      fc.property(values, fc.integer({ min: 0, max: 2 ** 31 }), (run, seed) => {
        const result = pairedBootstrap(run, [...run], { resamples: 200, seed });
        expect(result.difference).toBe(0);
        expect([result.low, result.high]).toEqual([0, 0]);
        expect(result.excludesZero).toBe(false);
      }),
    );
  });

  it("a constant shift: the difference and both ends of the interval are the shift", () => {
    fc.assert(
      fc.property(values, fc.double({ min: -1, max: 1, noNaN: true }), (baseline, shift) => {
        const current = baseline.map((v) => v + shift);
        const result = pairedBootstrap(current, baseline, options);
        for (const bound of [result.difference, result.low, result.high]) {
          expect(bound).toBeCloseTo(shift, 9);
        }
        // A shift clear of rounding is always marked; none is never marked.
        if (Math.abs(shift) > 1e-6) expect(result.excludesZero).toBe(true);
      }),
    );
  });

  it("the interval lies within the task differences and is ordered", () => {
    fc.assert(
      fc.property(pairs, ([current, baseline]) => {
        const result = pairedBootstrap(current, baseline, options);
        const differences = current.map((v, i) => v - (baseline[i] as number));
        const low = result.low as number;
        const high = result.high as number;
        expect(low).toBeLessThanOrEqual(high);
        expect(low).toBeGreaterThanOrEqual(Math.min(...differences) - 1e-12);
        expect(high).toBeLessThanOrEqual(Math.max(...differences) + 1e-12);
        expect(result.excludesZero).toBe(low > 0 || high < 0);
      }),
    );
  });

  it("swapping the runs mirrors the difference and the interval", () => {
    fc.assert(
      fc.property(pairs, ([current, baseline]) => {
        const forward = pairedBootstrap(current, baseline, options);
        const backward = pairedBootstrap(baseline, current, options);
        expect(backward.difference).toBeCloseTo(-(forward.difference as number), 12);
        expect(backward.low).toBeCloseTo(-(forward.high as number), 12);
        expect(backward.high).toBeCloseTo(-(forward.low as number), 12);
      }),
    );
  });

  it("is reproducible: the same seed gives the same interval", () => {
    fc.assert(
      fc.property(pairs, fc.integer({ min: 0, max: 1000 }), ([current, baseline], seed) => {
        const once = pairedBootstrap(current, baseline, { resamples: 100, seed });
        expect(pairedBootstrap(current, baseline, { resamples: 100, seed })).toEqual(once);
      }),
    );
  });

  it("tells a 2-point drop on 100 noisy tasks from a 20-point one", () => {
    // pass@1 as 0/1 per task: the baseline solves 60 of 100 tasks. Tonight loses 2 of them
    // (noise-sized) in one case and 20 in the other.
    const baseline = Array.from({ length: 100 }, (_, i) => (i % 5 < 3 ? 1 : 0));
    const lose = (n: number) => {
      let left = n;
      return baseline.map((v) => (v === 1 && left-- > 0 ? 0 : v));
    };
    const small = pairedBootstrap(lose(2), baseline);
    expect(small.difference).toBeCloseTo(-0.02, 12);
    expect(small.excludesZero).toBe(false);
    const large = pairedBootstrap(lose(20), baseline);
    expect(large.difference).toBeCloseTo(-0.2, 12);
    expect(large.excludesZero).toBe(true);
    expect(large.high).toBeLessThan(0);
  });

  it("reports no tasks as unknown, and refuses unpaired input or bad options", () => {
    expect(pairedBootstrap([], [])).toMatchObject({
      tasks: 0,
      difference: null,
      low: null,
      high: null,
      excludesZero: false,
    });
    expect(() => pairedBootstrap([1], [])).toThrow(/equal length, got 1 and 0/);
    expect(() => pairedBootstrap([1], [1], { resamples: 0 })).toThrow(/`resamples`/);
    expect(() => pairedBootstrap([1], [1], { confidence: 1 })).toThrow(/`confidence`/);
  });
});

describe("seededRandom", () => {
  it("draws in [0, 1), the same sequence for the same seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const a = seededRandom(seed);
        const b = seededRandom(seed);
        for (let i = 0; i < 50; i += 1) {
          const x = a();
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThan(1);
          expect(b()).toBe(x);
        }
      }),
    );
  });
});
