import type { CandidateRow } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateIndices, selectTasks } from "../src/index.js";

const scored = fc.oneof(
  fc.integer({ min: 0, max: 8 }).map((v) => v / 8),
  fc.constant(null),
);

function row(
  i: number,
  candidateIndex: number,
  score: number | null,
  label: boolean,
): CandidateRow {
  return {
    taskId: "t",
    sampleId: `s${i}`,
    candidateIndex,
    label,
    verifierScore: score,
    verifierDistributions: [],
    discreteScore: null,
    checkValue: null,
  };
}

describe("candidateIndices", () => {
  it("keeps distinct indices as they are", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 40 }), { maxLength: 8 }), (indices) => {
        expect(candidateIndices(indices)).toEqual(indices);
      }),
    );
  });

  it("tells candidates that share an index apart by their position", () => {
    expect(candidateIndices([0, 0, 0])).toEqual([0, 1, 2]);
    expect(candidateIndices([0, 0, 1, 2])).toEqual([0, 1, 2, 3]);
  });
});

describe("a task whose candidates all have index 0 (single-answer lines grouped by task_id)", () => {
  it("selects a candidate with the highest score, the first on a tie, and counts the first for pass@1", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(scored, fc.boolean()), { minLength: 1, maxLength: 6 }),
        (candidates) => {
          const rows = candidates.map(([score, label], i) => row(i, 0, score, label));
          const [selection] = selectTasks([{ taskId: "t", candidates: rows }]);
          const scores = rows.map((r) => r.verifierScore);
          const best = Math.max(...scores.map((s) => s ?? Number.NEGATIVE_INFINITY));
          const first = scores.findIndex((s) => s !== null && s === best);
          expect(selection?.selectedSampleId ?? null).toBe(first === -1 ? null : `s${first}`);
          expect(selection?.selectedCorrect).toBe(first === -1 ? false : rows[first]?.label);
          expect(selection?.firstCorrect).toBe(rows[0]?.label);
          expect(selection?.candidates).toBe(rows.length);
        },
      ),
    );
  });
});
