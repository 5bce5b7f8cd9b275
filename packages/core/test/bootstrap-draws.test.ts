import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bootstrapMeans } from "../src/stats/bootstrap-means.js";
import { pairedBootstrap } from "../src/stats/paired-bootstrap.js";
import { binomialDraw } from "../src/stats/random-draws.js";
import { seededRandom } from "../src/stats/seeded-random.js";

/** `n` tasks solved (1) or not (0) with chance `p`, from a seeded generator. */
function solved(n: number, p: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => (random() < p ? 1 : 0));
}

function meanAndVariance(draws: readonly number[]): [number, number] {
  const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
  return [mean, draws.reduce((s, x) => s + (x - mean) ** 2, 0) / (draws.length - 1)];
}

describe("binomialDraw", () => {
  it("draws with the binomial's mean and variance, small and large n", () => {
    const random = seededRandom(3);
    for (const [n, p] of [
      [10, 0.3],
      [200, 0.05],
      [5000, 0.5],
      [1_000_000, 0.001],
      [1_000_000, 0.97],
    ] as const) {
      const draws = Array.from({ length: 4000 }, () => binomialDraw(random, n, p));
      const [mean, variance] = meanAndVariance(draws);
      const sd = Math.sqrt(n * p * (1 - p));
      // Four standard errors of the mean; the variance within 15%.
      expect(Math.abs(mean - n * p)).toBeLessThan((4 * sd) / Math.sqrt(draws.length));
      expect(variance / (sd * sd)).toBeGreaterThan(0.85);
      expect(variance / (sd * sd)).toBeLessThan(1.15);
      expect(draws.every((x) => Number.isInteger(x) && x >= 0 && x <= n)).toBe(true);
    }
  });

  it("is certain at p = 0 and p = 1, and with no trials", () => {
    const random = seededRandom(1);
    expect(binomialDraw(random, 1000, 0)).toBe(0);
    expect(binomialDraw(random, 1000, 1)).toBe(1000);
    expect(binomialDraw(random, 0, 0.5)).toBe(0);
  });
});

describe("bootstrap resamples drawn as counts per distinct value", () => {
  it("agree with drawing every index", () => {
    const current = solved(20_000, 0.62, 1);
    const baseline = solved(20_000, 0.6, 2);
    const differences = Float64Array.from(current, (v, i) => v - (baseline[i] as number));
    const percentiles = (method: "direct" | "grouped"): [number, number] => {
      const means = bootstrapMeans(differences, 2000, seededRandom(5), method).sort();
      return [means[49] as number, means[1949] as number];
    };
    const [directLow, directHigh] = percentiles("direct");
    const [groupedLow, groupedHigh] = percentiles("grouped");
    // The interval is about ±0.0095 wide here; both ways land within resampling noise.
    expect(Math.abs(groupedLow - directLow)).toBeLessThan(0.0015);
    expect(Math.abs(groupedHigh - directHigh)).toBeLessThan(0.0015);
  });

  it("keep the properties at scale: identical runs give [0, 0], a shift gives the shift", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5000, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(0, 0.25, -1),
        (n, p, seed, shift) => {
          const baseline = solved(n, p, seed);
          const current = baseline.map((v) => v + shift);
          const result = pairedBootstrap(current, baseline, { resamples: 300, seed });
          expect(result.difference).toBe(shift);
          expect([result.low, result.high]).toEqual([shift, shift]);
          expect(result.excludesZero).toBe(shift !== 0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("takes a moment for a million tasks: counts per value, not an index per task", () => {
    const current = solved(1_000_000, 0.7, 1);
    const baseline = solved(1_000_000, 0.69, 2);
    const result = pairedBootstrap(current, baseline);
    expect(result.tasks).toBe(1_000_000);
    expect(result.low).toBeLessThan(result.difference as number);
    expect(result.high).toBeGreaterThan(result.difference as number);
    // Counted, not timed, so a busy machine cannot fail it: drawing every index would take
    // 2·10⁹ draws (tens of seconds); three distinct differences take a few hundred per
    // resample (each binomial draw takes several).
    const random = seededRandom(1);
    let draws = 0;
    const counting = () => {
      draws += 1;
      return random();
    };
    const differences = Float64Array.from(current, (value, i) => value - (baseline[i] as number));
    bootstrapMeans(differences, 2000, counting);
    expect(draws).toBeLessThan(2000 * 1000);
  });
});
