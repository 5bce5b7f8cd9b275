import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  choosePivots,
  combineOrders,
  fitBradleyTerry,
  type PairJudgment,
  pairPrompts,
  pairwiseTournament,
  pivotPairs,
  selectTask,
} from "../src/index.js";

/** Both orders of every pair, each from a judge that follows Bradley–Terry exactly. */
function judgeAll(strength: (index: number) => number, indices: readonly number[]): PairJudgment[] {
  return indices.flatMap((first) =>
    indices
      .filter((second) => second !== first)
      .map((second) => ({
        first,
        second,
        probability: strength(first) / (strength(first) + strength(second)),
      })),
  );
}

const distinctIndices = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), {
  minLength: 1,
  maxLength: 12,
});

describe("pivot pairs", () => {
  it("plans k·N − k(k+1)/2 distinct pairs, each with a pivot, for any N and k", () => {
    fc.assert(
      fc.property(
        distinctIndices,
        fc.integer({ min: 1, max: 15 }),
        fc.integer(),
        (indices, k, seed) => {
          const pivots = choosePivots(indices, k, seed, "task");
          const kk = Math.min(k, indices.length);
          const pairs = pivotPairs(indices, pivots);
          expect(pivots).toHaveLength(kk);
          expect(pairs).toHaveLength(kk * indices.length - (kk * (kk + 1)) / 2);
          const keys = pairs.map(({ a, b }) => [Math.min(a, b), Math.max(a, b)].join("-"));
          expect(new Set(keys).size).toBe(pairs.length);
          expect(
            pairs.every(({ a, b }) => a !== b && (pivots.includes(a) || pivots.includes(b))),
          ).toBe(true);
        },
      ),
    );
  });

  it("plans both orders of every pair, under ids selection reads back with the same pivots", () => {
    fc.assert(
      fc.property(
        distinctIndices,
        fc.integer({ min: 1, max: 6 }),
        fc.integer(),
        (indices, k, seed) => {
          const prompts = pairPrompts("task", indices, { k, seed });
          const n = indices.length;
          const kk = Math.min(k, n);
          expect(prompts).toHaveLength(n < 2 ? 0 : 2 * (kk * n - (kk * (kk + 1)) / 2));
          expect(new Set(prompts.map((p) => p.sampleId)).size).toBe(prompts.length);
          const judgments = prompts.map((p) => ({
            first: p.first,
            second: p.second,
            probability: 0.5,
          }));
          const result = pairwiseTournament(indices, judgments, { k, seed, taskId: "task" });
          expect(result.evidence.judgedPairs).toBe(prompts.length / 2);
        },
      ),
    );
  });

  it("draws the same pivots for the same seed and task, whatever the input order", () => {
    fc.assert(
      fc.property(
        distinctIndices,
        fc.integer({ min: 1, max: 5 }),
        fc.integer(),
        (indices, k, seed) => {
          const reversed = [...indices].reverse();
          expect(choosePivots(reversed, k, seed, "t")).toEqual(choosePivots(indices, k, seed, "t"));
        },
      ),
    );
  });

  it("draws different pivots for different tasks or seeds (not always the same positions)", () => {
    const indices = Array.from({ length: 20 }, (_, i) => i);
    const draws = new Set(
      Array.from({ length: 10 }, (_, s) => choosePivots(indices, 3, s, "t").join(",")),
    );
    expect(draws.size).toBeGreaterThan(5);
    expect(choosePivots(indices, 3, 1, "a")).not.toEqual(choosePivots(indices, 3, 1, "b"));
  });
});

describe("both orders", () => {
  it("averages the two orders and counts a pair whose preference flips with the order", () => {
    const { judged, missing } = combineOrders(
      [
        { a: 0, b: 1 },
        { a: 0, b: 2 },
        { a: 1, b: 2 },
      ],
      [
        // A always preferred: 0 wins when shown first, 1 wins when shown first.
        { first: 0, second: 1, probability: 0.8 },
        { first: 1, second: 0, probability: 0.7 },
        // Consistent: 0 beats 2 either way.
        { first: 0, second: 2, probability: 0.9 },
        { first: 2, second: 0, probability: 0.2 },
        // One order unscored: the pair is missing.
        { first: 1, second: 2, probability: 0.6 },
        { first: 2, second: 1, probability: null },
      ],
    );
    expect(judged.map((p) => [p.a, p.b, p.flipped])).toEqual([
      [0, 1, true],
      [0, 2, false],
    ]);
    expect(judged[0]?.probability).toBeCloseTo((0.8 + 0.3) / 2, 12);
    expect(judged[1]?.probability).toBeCloseTo((0.9 + 0.8) / 2, 12);
    expect(missing).toEqual([{ a: 1, b: 2 }]);
  });
});

describe("Bradley–Terry fit", () => {
  it("orders candidates like the strengths that generated the probabilities", () => {
    const strengths = fc
      .uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 2, maxLength: 10 })
      .map((values) => values.map((v) => v / 100));
    fc.assert(
      fc.property(strengths, fc.integer({ min: 1, max: 4 }), fc.integer(), (truth, k, seed) => {
        const indices = truth.map((_, i) => i);
        const result = pairwiseTournament(
          indices,
          judgeAll((i) => truth[i] as number, indices),
          { k, seed, taskId: "t" },
        );
        const expected = [...indices].sort((x, y) => (truth[y] as number) - (truth[x] as number));
        expect(result.ranking).toEqual(expected);
        expect(result.evidence.converged).toBe(true);
      }),
    );
  });

  it("recovers the log-strength differences of an exact Bradley–Terry judge", () => {
    const truth = [1, 2, 4, 8];
    const at = (i: number) => truth[i] ?? 0;
    const pairs = [
      { a: 0, b: 1 },
      { a: 0, b: 2 },
      { a: 0, b: 3 },
      { a: 1, b: 2 },
    ].map(({ a, b }) => ({ a, b, probability: at(a) / (at(a) + at(b)) }));
    const fit = fitBradleyTerry(pairs);
    expect(fit.converged).toBe(true);
    expect((fit.strengths.get(3) ?? 0) - (fit.strengths.get(0) ?? 0)).toBeCloseTo(Math.log(8), 6);
    expect((fit.strengths.get(2) ?? 0) - (fit.strengths.get(1) ?? 0)).toBeCloseTo(Math.log(2), 6);
  });

  it("stays finite when one candidate wins every comparison outright", () => {
    const fit = fitBradleyTerry([
      { a: 0, b: 1, probability: 1 },
      { a: 0, b: 2, probability: 1 },
      { a: 1, b: 2, probability: 0.5 },
    ]);
    expect(fit.converged).toBe(true);
    expect(Number.isFinite(fit.strengths.get(0))).toBe(true);
    expect(fit.strengths.get(1)).toBe(fit.strengths.get(2));
  });
});

describe("pairwise tournament", () => {
  it("gives the same pick, pivots and matrix for the same seed and judgments", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 8 }),
        fc.integer(),
        (noise, seed) => {
          const indices = noise.map((_, i) => i);
          const judgments = indices.flatMap((first) =>
            indices
              .filter((second) => second !== first)
              .map((second) => ({
                first,
                second,
                probability: ((noise[first] as number) + 1 - (noise[second] as number)) / 2,
              })),
          );
          const once = pairwiseTournament(indices, judgments, { k: 2, seed, taskId: "t" });
          const again = pairwiseTournament([...indices].reverse(), [...judgments].reverse(), {
            k: 2,
            seed,
            taskId: "t",
          });
          expect(again.ranking).toEqual(once.ranking);
          expect(again.evidence).toEqual(once.evidence);
        },
      ),
    );
  });

  it("records pivots, seed, the matrix and position bias, and ties to the lowest index", () => {
    // An even judge: every pair 0.5 in both orders, so all strengths tie.
    const indices = [0, 1, 2, 3];
    const judgments = judgeAll(() => 1, indices);
    const result = pairwiseTournament(indices, judgments, { k: 2, seed: 7, taskId: "t" });
    expect(result.ranking[0]).toBe(0);
    expect(result.tie).toBe(true);
    expect(result.evidence.seed).toBe(7);
    expect(result.evidence.pairs).toBe(2 * 4 - 3);
    expect(result.evidence.judgedPairs).toBe(5);
    expect(result.evidence.flippedPairs).toBe(0);
    expect(result.evidence.matrix.indices).toEqual(indices);
    const [p, q] = result.evidence.pivots as [number, number];
    expect(result.evidence.matrix.probabilities[p]?.[q]).toBe(0.5);
  });

  it("picks by the judge, not by the pointwise score, and keeps best-of-N's pick beside it", () => {
    const candidates = [
      { index: 0, sampleId: "t#0", score: 0.9, correct: false },
      { index: 1, sampleId: "t#1", score: 0.4, correct: true },
      { index: 2, sampleId: "t#2", score: 0.1, correct: false },
    ];
    // The judge prefers candidate 1 over everyone.
    const judgments = judgeAll((i) => (i === 1 ? 5 : 1), [0, 1, 2]);
    const selection = selectTask("t", candidates, { method: "pivot_tournament", k: 2 }, judgments);
    expect(selection.selectedIndex).toBe(1);
    expect(selection.selectedCorrect).toBe(true);
    expect(selection.pointwise).toEqual({ selectedIndex: 0, selectedCorrect: false });
    expect(selection.pairwise?.pairs).toBe(3);
  });
});
