import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accuracyAt,
  auroc,
  brierScore,
  expectedCalibrationError,
  type LabelledScore,
  reliabilityBins,
} from "../src/stats/calibration.js";

// On a grid of 1/1000: a strictly increasing transform stays strictly increasing in floats.
const score = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
const point = fc.record({ score, label: fc.boolean() });
const points = fc.array(point, { minLength: 0, maxLength: 80 });
/** Both classes present. */
const mixed = fc
  .tuple(
    fc.array(score, { minLength: 1, maxLength: 40 }),
    fc.array(score, { minLength: 1, maxLength: 40 }),
  )
  .map(([pos, neg]) => [
    ...pos.map((s) => ({ score: s, label: true })),
    ...neg.map((s) => ({ score: s, label: false })),
  ]);

describe("auroc", () => {
  it("is 1 for a perfect ranking and 0 for the reversed one", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(score, { minLength: 2, maxLength: 60 }),
        fc.integer({ min: 1, max: 59 }),
        (scores, cut) => {
          const sorted = [...scores].sort((a, b) => a - b);
          const k = Math.min(cut, sorted.length - 1);
          const ranked = sorted.map((s, i) => ({ score: s, label: i >= k }));
          expect(auroc(ranked)).toBe(1);
          const reversed = sorted.map((s, i) => ({ score: s, label: i < k }));
          expect(auroc(reversed)).toBe(0);
        },
      ),
    );
  });

  it("is unchanged by a strictly increasing transform of the scores", () => {
    fc.assert(
      fc.property(mixed, (data) => {
        const transformed = data.map((p) => ({ score: Math.exp(3 * p.score) - 7, label: p.label }));
        expect(auroc(transformed)).toBeCloseTo(auroc(data) ?? Number.NaN, 12);
      }),
    );
  });

  it("counts ties as one half: all scores equal gives 0.5", () => {
    fc.assert(
      fc.property(mixed, score, (data, s) => {
        expect(auroc(data.map((p) => ({ ...p, score: s })))).toBe(0.5);
      }),
    );
  });

  it("equals the pairwise definition (positive above negative, ties one half)", () => {
    fc.assert(
      fc.property(mixed, (data) => {
        const pos = data.filter((p) => p.label);
        const neg = data.filter((p) => !p.label);
        let wins = 0;
        for (const a of pos)
          for (const b of neg) wins += a.score > b.score ? 1 : a.score === b.score ? 0.5 : 0;
        expect(auroc(data)).toBeCloseTo(wins / (pos.length * neg.length), 12);
      }),
    );
  });

  it("is null when a class is missing", () => {
    expect(auroc([{ score: 0.3, label: true }])).toBeNull();
    expect(auroc([])).toBeNull();
  });
});

describe("brierScore", () => {
  it("lies in [0, 1]; 0 for exact predictions, 1 for exactly wrong ones", () => {
    fc.assert(
      fc.property(points, (data) => {
        const b = brierScore(data);
        if (data.length === 0) {
          expect(b).toBeNull();
          return;
        }
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThanOrEqual(1);
        const exact = data.map((p) => ({ score: p.label ? 1 : 0, label: p.label }));
        expect(brierScore(exact)).toBe(0);
        const wrong = data.map((p) => ({ score: p.label ? 0 : 1, label: p.label }));
        expect(brierScore(wrong)).toBe(1);
      }),
    );
  });
});

describe("expectedCalibrationError", () => {
  it("is 0 when each bin's mean score equals its positive rate", () => {
    // Per bin: n points scored exactly at a rate r = positives / n inside the bin.
    const bin = fc
      .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 12 }))
      .chain(([index, n]) =>
        fc.integer({ min: 0, max: n }).map((positives) => ({ index, n, positives })),
      )
      .filter(({ index, n, positives }) => Math.min(9, Math.floor((positives / n) * 10)) === index);
    fc.assert(
      fc.property(fc.array(bin, { minLength: 1, maxLength: 10 }), (bins) => {
        const data: LabelledScore[] = bins.flatMap(({ n, positives }) =>
          Array.from({ length: n }, (_, i) => ({ score: positives / n, label: i < positives })),
        );
        expect(expectedCalibrationError(data)).toBeCloseTo(0, 12);
      }),
    );
  });

  it("lies in [0, 1] and its bins hold every point", () => {
    fc.assert(
      fc.property(points, (data) => {
        const ece = expectedCalibrationError(data);
        if (data.length === 0) {
          expect(ece).toBeNull();
          return;
        }
        expect(ece).toBeGreaterThanOrEqual(0);
        expect(ece).toBeLessThanOrEqual(1);
        expect(reliabilityBins(data).reduce((n, b) => n + b.count, 0)).toBe(data.length);
      }),
    );
  });

  it("is the gap of a confidently wrong model", () => {
    const data = Array.from({ length: 10 }, () => ({ score: 0.95, label: false }));
    expect(expectedCalibrationError(data)).toBeCloseTo(0.95, 12);
    expect(accuracyAt(data)).toBe(0);
  });
});
