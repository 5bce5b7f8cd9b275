import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MOMENTS_FROM, pairedBootstrapOfCounts } from "../src/stats/counted-differences.js";
import { pairedBootstrap } from "../src/stats/paired-bootstrap.js";
import { seededRandom } from "../src/stats/seeded-random.js";

const numRuns = propertyRuns(100);

// Few levels (accuracies, graded scorers) and continuous values, so that both the grouped
// and the direct draw are taken.
const value = fc.oneof(
  fc.constantFrom(0, 0.25, 0.5, 1),
  fc.double({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }),
);
const pairs = fc.array(fc.tuple(value, value), { minLength: 0, maxLength: 400 });

/** What a database sends: each distinct difference with its count, ascending, and the sums. */
function counted(tasks: readonly (readonly [number, number])[]) {
  const counts = new Map<number, number>();
  for (const [c, b] of tasks) counts.set(c - b, (counts.get(c - b) ?? 0) + 1);
  return {
    currentSum: tasks.reduce((sum, [c]) => sum + c, 0),
    baselineSum: tasks.reduce((sum, [, b]) => sum + b, 0),
    differences: [...counts]
      .sort(([x], [y]) => x - y)
      .map(([v, count]) => ({ value: v === 0 ? 0 : v, count })),
  };
}

describe("pairedBootstrapOfCounts", () => {
  it("gives the interval pairedBootstrap gives for the tasks in order of their difference", () => {
    fc.assert(
      fc.property(pairs, fc.integer({ min: 0, max: 1000 }), (tasks, seed) => {
        const options = { resamples: 50, seed };
        const sorted = [...tasks].sort(([c1, b1], [c2, b2]) => c1 - b1 - (c2 - b2));
        const expected = pairedBootstrap(
          sorted.map(([c]) => c),
          sorted.map(([, b]) => b),
          options,
        );
        const got = pairedBootstrapOfCounts(counted(tasks), options);
        expect(got.tasks).toBe(expected.tasks);
        expect([got.low, got.high, got.excludesZero]).toEqual([
          expected.low,
          expected.high,
          expected.excludesZero,
        ]);
        for (const key of ["current", "baseline", "difference"] as const) {
          if (expected[key] === null) expect(got[key]).toBeNull();
          else expect(got[key]).toBeCloseTo(expected[key], 9);
        }
      }),
      { numRuns },
    );
  });

  it("refuses differences out of order or counted twice, which would change the draw", () => {
    const twice = {
      currentSum: 1,
      baselineSum: 0,
      differences: [1, 1].map((v) => ({ value: v, count: 1 })),
    };
    expect(() => pairedBootstrapOfCounts(twice)).toThrow(/ascending order, each once/);
    const descending = {
      currentSum: 1,
      baselineSum: 0,
      differences: [
        { value: 1, count: 1 },
        { value: 0, count: 1 },
      ],
    };
    expect(() => pairedBootstrapOfCounts(descending)).toThrow(/ascending order/);
  });

  it("gives summed differences of many tasks the interval their exact bootstrap gives, within its noise", () => {
    // Just above where a database sums a figure's differences: uniform, skewed and
    // rare-outlier differences, as a continuous verifier's means can be.
    const n = MOMENTS_FROM.tasks + 5_000;
    const shapes: Record<string, (u: () => number) => number> = {
      uniform: (u) => 2 * u() - 1,
      skewed: (u) => -Math.log(1 - u()) / 8 - 0.1,
      outliers: (u) => (u() < 0.002 ? 0.9 : 0.02 * (u() - 0.45)),
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(shapes)),
        fc.integer({ min: 1, max: 1e6 }),
        (shape, seed) => {
          const draw = shapes[shape] as (u: () => number) => number;
          const u = seededRandom(seed);
          const current = Array.from({ length: n }, () => draw(u));
          const baseline = new Array<number>(n).fill(0);
          const exact = pairedBootstrap(current, baseline, { resamples: 2000, seed });
          const sum = current.reduce((a, d) => a + d, 0);
          const summed = pairedBootstrapOfCounts({
            currentSum: sum,
            baselineSum: 0,
            differences: [{ value: sum / n, count: n }],
            squareSum: current.reduce((a, d) => a + d * d, 0),
          });
          expect(summed).toMatchObject({ tasks: n, interval: "normal" });
          expect(summed.difference).toBeCloseTo(exact.difference as number, 12);
          const width = (exact.high as number) - (exact.low as number);
          expect(Math.abs((summed.low as number) - (exact.low as number)), shape).toBeLessThan(
            0.05 * width,
          );
          expect(Math.abs((summed.high as number) - (exact.high as number)), shape).toBeLessThan(
            0.05 * width,
          );
          expect(summed.excludesZero).toBe(
            (summed.low as number) > 0 || (summed.high as number) < 0,
          );
        },
      ),
      { numRuns: propertyRuns(3) },
    );
  });
});
