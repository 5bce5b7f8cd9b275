import { describe, expect, it } from "vitest";
import { pivotComparisonCount, pivotTournament, preferenceProbability } from "../src/index.js";

const scores = [0.2, 0.9, 0.5, 0.9, 0.1];
const bradleyTerry = (a: number, b: number) =>
  preferenceProbability(scores[a] ?? 0, scores[b] ?? 0);

describe("pivot tournament", () => {
  it("compares each candidate with k evenly spaced pivots: k·N − k(k+1)/2 comparisons", () => {
    const result = pivotTournament([0, 1, 2, 3, 4], bradleyTerry, { k: 2 });
    // Pivots at positions floor(0·5/2) = 0 and floor(1·5/2) = 2.
    expect(result.pivots).toEqual([0, 2]);
    // 1 pivot pair + 3 others × 2 pivots = 7 = 2·5 − 3.
    expect(result.comparisons).toHaveLength(7);
    expect(pivotComparisonCount(5, 2)).toBe(7);
    expect(pivotComparisonCount(100, 4)).toBeLessThanOrEqual(400);
    // All pairs when k ≥ N.
    expect(pivotComparisonCount(5, 9)).toBe(10);
  });

  it("computes strength as the mean win probability against the pivots", () => {
    const result = pivotTournament([0, 1, 2, 3, 4], bradleyTerry, { k: 2 });
    // Candidate 1 (R 0.9) vs pivots 0 (R 0.2) and 2 (R 0.5): (σ(0.7) + σ(0.4)) / 2.
    expect(result.strengths.get(1)).toBeCloseTo((0.6681878 + 0.5986877) / 2, 6);
    // Pivot 2 meets itself as 0.5 and pivot 0 as σ(0.3) = 0.574443.
    expect(result.strengths.get(2)).toBeCloseTo((0.5 + 0.5744425) / 2, 6);
  });

  it("ranks like sorting by score under Bradley–Terry, ties to the lowest index", () => {
    const result = pivotTournament([0, 1, 2, 3, 4], bradleyTerry, { k: 2 });
    expect(result.ranking).toEqual([1, 3, 2, 0, 4]);
    expect(result.tie).toBe(true);
  });

  it("sees a tie between equal scores, whichever direction each comparison was made in", () => {
    // Pivots 32 and 33 share the top score. 32 meets pivot 29 directly (σ(x)), 33 reads it
    // as 1 − P(29 beats 33); with σ(−x) computed by another formula than 1 − σ(x), their
    // strengths came out an ulp apart and 33 won without a tie.
    const top = 0.0038644940499406658;
    const byIndex = new Map([
      [32, top],
      [22, 0],
      [29, 0],
      [50, 0],
      [33, top],
      [46, 0],
    ]);
    const result = pivotTournament(
      [...byIndex.keys()],
      (a, b) => preferenceProbability(byIndex.get(a) ?? 0, byIndex.get(b) ?? 0, 0.5533117590708643),
      { k: 3 },
    );
    expect(result.pivots).toEqual([32, 29, 33]);
    expect(result.strengths.get(32)).toBe(result.strengths.get(33));
    expect(result.tie).toBe(true);
    expect(result.ranking.slice(0, 2)).toEqual([32, 33]);
  });

  it("follows the comparisons it is given, even non-transitive ones", () => {
    // Candidate 2 beats everyone it meets; others are even.
    const judge = (a: number, b: number) => (a === 2 ? 0.9 : b === 2 ? 0.1 : 0.5);
    const result = pivotTournament([0, 1, 2, 3], judge, { k: 2 });
    expect(result.ranking[0]).toBe(2);
    expect(result.tie).toBe(false);
  });

  it("refuses a k that is not a positive integer", () => {
    expect(() => pivotTournament([0, 1], bradleyTerry, { k: 0 })).toThrow(/from 1 and up, got `0`/);
  });
});
