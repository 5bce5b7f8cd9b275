import { describe, expect, it } from "vitest";
import {
  accuracyOf,
  type Candidate,
  discreteScoreOf,
  isCorrect,
  selectTask,
} from "../src/index.js";

function candidate(index: number, score: number | null, correct: boolean | null): Candidate {
  return { index, sampleId: `t#${index}`, score, correct };
}

describe("selectTask", () => {
  it("picks the highest verifier score and reports the exact tie it broke", () => {
    const result = selectTask("t", [
      candidate(0, 0.4, false),
      candidate(1, 0.9, true),
      candidate(2, 0.9, false),
      candidate(3, null, true),
    ]);
    expect(result.selectedIndex).toBe(1);
    expect(result.selectedSampleId).toBe("t#1");
    expect(result.tie).toBe(true);
    expect(result.tieBreak).toBe("lowest_candidate_index");
    expect(result.scores).toEqual({ 0: 0.4, 1: 0.9, 2: 0.9, 3: null });
    expect(result.ranking).toEqual([1, 2, 0]);
    expect(result).toMatchObject({ selectedCorrect: true, firstCorrect: false, anyCorrect: true });
  });

  it("keeps the tournament's pairwise probabilities as evidence", () => {
    const result = selectTask(
      "t",
      [candidate(0, 0.3, false), candidate(1, 0.8, true), candidate(2, 0.5, false)],
      { method: "pivot_tournament", k: 1 },
    );
    expect(result.method).toBe("pivot_tournament");
    expect(result.selectedIndex).toBe(1);
    expect(result.tie).toBe(false);
    expect(result.tieBreak).toBeNull();
    // One pivot (candidate 0): 1 vs 0 is σ(0.5), 2 vs 0 is σ(0.2).
    expect(result.comparisons).toEqual([
      { a: 1, b: 0, probability: expect.closeTo(0.6224593, 6) },
      { a: 2, b: 0, probability: expect.closeTo(0.549834, 6) },
    ]);
  });

  it("selects nothing when the verifier scored no candidate: the task is unsolved", () => {
    const result = selectTask("t", [candidate(0, null, true), candidate(1, null, false)]);
    expect(result.selectedIndex).toBeNull();
    expect(result.selectedCorrect).toBe(false);
    expect(result.firstCorrect).toBe(true);
    expect(result.anyCorrect).toBe(true);
  });

  it("measures the discrete tie a 1..G judge would have had", () => {
    const result = selectTask("t", [
      { ...candidate(0, 0.61, true), discreteScore: 0.5 },
      { ...candidate(1, 0.6, false), discreteScore: 0.5 },
    ]);
    expect(result.tie).toBe(false);
    expect(result.discreteTie).toBe(true);
  });
});

describe("correctness", () => {
  it("prefers the label, else compares the check with the threshold, else unknown", () => {
    expect(isCorrect({ label: false, checkValue: 1 })).toBe(false);
    expect(isCorrect({ label: undefined, checkValue: 0.5 })).toBe(true);
    expect(isCorrect({ label: null, checkValue: 0.7 }, 0.8)).toBe(false);
    expect(isCorrect({ label: null, checkValue: null })).toBeNull();
  });
});

describe("discreteScoreOf", () => {
  it("averages the argmax level of each distribution, scaled like φ", () => {
    const detail = {
      criteria: [
        { variants: [{ distribution: [0.1, 0.5, 0.4] }, { distribution: [0, 0.2, 0.8] }] },
      ],
    };
    // argmax 1 of 3 levels → 0.5; argmax 2 → 1; mean 0.75.
    expect(discreteScoreOf(detail)).toBe(0.75);
    expect(discreteScoreOf({ criteria: [{ variants: [{ value: 1 }] }] })).toBeNull();
    expect(discreteScoreOf(null)).toBeNull();
  });
});

describe("accuracyOf", () => {
  it("puts pass@1, selected and oracle side by side, leaving unknowns out", () => {
    const tasks = [
      selectTask("a", [candidate(0, 0.2, false), candidate(1, 0.9, true)]),
      selectTask("b", [candidate(0, 0.9, true), candidate(1, 0.1, false)]),
      selectTask("c", [candidate(0, 0.9, false), candidate(1, 0.2, true)]),
      selectTask("d", [candidate(0, 0.5, null), candidate(1, 0.4, false)]),
    ];
    const accuracy = accuracyOf(tasks);
    expect(accuracy.tasks).toBe(4);
    expect(accuracy.pass1).toEqual({ count: 1, of: 3, rate: 1 / 3 });
    expect(accuracy.selected).toEqual({ count: 2, of: 3, rate: 2 / 3 });
    expect(accuracy.oracle).toEqual({ count: 3, of: 3, rate: 1 });
  });

  it("keeps tasks with no scored candidate in every denominator, unsolved for the pick", () => {
    // Five tasks whose first candidate is right; in two the verifier overflowed on both.
    const overflowing = (id: string) =>
      selectTask(id, [candidate(0, null, true), candidate(1, null, false)]);
    const scored = (id: string) =>
      selectTask(id, [candidate(0, 0.2, true), candidate(1, 0.8, false)]);
    const accuracy = accuracyOf([
      scored("a"),
      overflowing("b"),
      scored("c"),
      overflowing("d"),
      scored("e"),
    ]);
    expect(accuracy.pass1).toEqual({ count: 5, of: 5, rate: 1 });
    expect(accuracy.selected).toEqual({ count: 0, of: 5, rate: 0 });
    expect(accuracy.oracle).toEqual({ count: 5, of: 5, rate: 1 });
    expect(accuracy.unselected).toBe(2);
  });

  it("leaves a task whose correctness is unknown for one figure out of all three", () => {
    // pass@1 and the pick are known (right), the oracle is not: some wrong, one unknown.
    const task = selectTask("t", [candidate(0, 0.9, true), candidate(1, 0.1, null)]);
    expect(task.anyCorrect).toBe(true);
    const unknownPick = selectTask("u", [candidate(0, 0.1, false), candidate(1, 0.9, null)]);
    expect(unknownPick).toMatchObject({ firstCorrect: false, selectedCorrect: null });
    const accuracy = accuracyOf([task, unknownPick]);
    expect(accuracy.pass1).toEqual({ count: 1, of: 1, rate: 1 });
    expect(accuracy.selected).toEqual({ count: 1, of: 1, rate: 1 });
    expect(accuracy.oracle).toEqual({ count: 1, of: 1, rate: 1 });
  });
});
