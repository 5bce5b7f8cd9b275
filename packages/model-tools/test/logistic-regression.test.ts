import { auroc } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitProbeVector, stratifiedFolds } from "../src/probe/cross-validate.js";
import {
  type Dataset,
  fitLogistic,
  gradient,
  objective,
  predict,
  rawProbe,
  standardize,
  standardizer,
} from "../src/probe/logistic-regression.js";

const cell = fc.double({ min: -3, max: 3, noNaN: true });
/** 4..30 rows of width 1..5 with both labels present. */
const datasets = fc
  .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 4, max: 30 }))
  .chain(([width, n]) =>
    fc.record({
      rows: fc.array(
        fc.array(cell, { minLength: width, maxLength: width }).map((r) => Float64Array.from(r)),
        {
          minLength: n,
          maxLength: n,
        },
      ),
      labels: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    }),
  )
  .filter((d) => d.labels.includes(true) && d.labels.includes(false));
const lambda = fc.constantFrom(0.01, 0.1, 1, 10);

function maxAbs(values: Float64Array, extra: number): number {
  return Math.max(Math.abs(extra), ...Array.from(values, Math.abs));
}

describe("fitLogistic", () => {
  it("stops at a point where the penalised objective's gradient vanishes", () => {
    fc.assert(
      fc.property(datasets, lambda, (data: Dataset, l) => {
        const fit = fitLogistic(data, l, { tolerance: 1e-7, maxIterations: 20_000 });
        expect(fit.converged).toBe(true);
        const grad = new Float64Array(fit.weights.length);
        const biasGrad = gradient(data, l, fit.weights, fit.bias, grad);
        expect(maxAbs(grad, biasGrad)).toBeLessThan(1e-7);
        // A minimum: nudging any weight does not lower the objective.
        const at = objective(data, l, fit.weights, fit.bias);
        const nudged = Float64Array.from(fit.weights);
        nudged[0] = (nudged[0] ?? 0) + 1e-3;
        expect(objective(data, l, nudged, fit.bias)).toBeGreaterThanOrEqual(at - 1e-12);
      }),
      { numRuns: 60 },
    );
  });

  it("converges where an underestimated curvature bound once made it stall", () => {
    const zero = [0, 0, 0];
    const at = (index: number, value: number) => zero.map((_, j) => (j === index ? value : 0));
    const rows = Array.from({ length: 27 }, () => zero);
    [rows[2], rows[3], rows[12], rows[13], rows[18]] = [
      at(1, -3),
      at(0, 3),
      at(1, -3),
      at(1, -3),
      at(0, -3),
    ];
    const labels = rows.map((_, i) => i === 2 || i === 13);
    const data = { rows: rows.map((r) => Float64Array.from(r)), labels };
    const fit = fitLogistic(data, 0.01, { tolerance: 1e-7, maxIterations: 20_000 });
    expect(fit.converged).toBe(true);
  });

  it("shrinks the weights as λ grows", () => {
    fc.assert(
      fc.property(datasets, (data) => {
        const norm = (l: number) =>
          Math.hypot(...fitLogistic(data, l, { tolerance: 1e-8, maxIterations: 20_000 }).weights);
        expect(norm(10)).toBeLessThanOrEqual(norm(0.1) + 1e-6);
      }),
      { numRuns: 40 },
    );
  });
});

describe("rawProbe", () => {
  it("gives on raw features the prediction the fit gives on standardised ones", () => {
    fc.assert(
      fc.property(datasets, (data) => {
        const s = standardizer(data.rows);
        const fit = fitLogistic(
          { rows: data.rows.map((r) => standardize(s, r)), labels: data.labels },
          0.1,
        );
        const raw = rawProbe(s, fit);
        for (const row of data.rows) {
          expect(predict(raw.probe, raw.bias, row)).toBeCloseTo(
            predict(fit.weights, fit.bias, standardize(s, row)),
            9,
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("fitProbeVector", () => {
  it("folds are stratified and the same for the same seed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 10, maxLength: 80 }),
        fc.integer(),
        (labels, seed) => {
          const folds = stratifiedFolds(labels, 5, seed);
          expect(stratifiedFolds(labels, 5, seed)).toEqual(folds);
          for (const cls of [true, false]) {
            const counts = [0, 1, 2, 3, 4].map(
              (f) => folds.filter((k, i) => k === f && labels[i] === cls).length,
            );
            expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it("finds a direction hidden in noise and predicts held-out rows well", () => {
    // 120 rows of 8 noisy features; the label is the sign of feature 3 (plus noise).
    let state = 12345;
    const noise = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31 - 0.5;
    };
    const rows = Array.from({ length: 120 }, () =>
      Float64Array.from({ length: 8 }, () => noise() * 4),
    );
    const labels = rows.map((r) => (r[3] ?? 0) + noise() > 0);
    const fit = fitProbeVector({ rows, labels }, { seed: 3 });
    expect(auroc(fit.heldOut)).toBeGreaterThan(0.9);
    const strongest = Array.from(fit.probe, Math.abs).indexOf(
      Math.max(...Array.from(fit.probe, Math.abs)),
    );
    expect(strongest).toBe(3);
    expect(fitProbeVector({ rows, labels }, { seed: 3 })).toEqual(fit);
  });

  it("refuses a single class", () => {
    const rows = [Float64Array.of(1), Float64Array.of(2), Float64Array.of(3)];
    expect(() => fitProbeVector({ rows, labels: [true, true, true] })).toThrow(/each label/);
  });
});
