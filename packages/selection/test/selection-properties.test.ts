import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accuracyOf,
  type Candidate,
  pivotComparisonCount,
  pivotTournament,
  type SelectOptions,
  selectTask,
} from "../src/index.js";

/** Both methods, with the tournament's pivots and Bradley–Terry scale drawn too. */
const methodOptions: fc.Arbitrary<SelectOptions> = fc.oneof(
  fc.constant<SelectOptions>({ method: "best_of_n" }),
  fc.record({
    method: fc.constant("pivot_tournament" as const),
    k: fc.integer({ min: 1, max: 6 }),
    // Up to 10: beyond ~35, σ rounds to exactly 1 and distinct scores stop being told apart.
    scale: fc.double({ min: 0.5, max: 10, noNaN: true }),
  }),
);

/**
 * A verifier score on a 1/1000 grid: two scores are either equal or far enough apart that
 * the tournament's strengths tell them apart too. Round values come often, so ties do.
 */
const gridScore = fc.oneof(
  fc.integer({ min: 0, max: 1000 }).map((v) => v / 1000),
  fc.constantFrom(0.25, 0.5, 0.75, 1),
);

/** Distinct candidate indices (not necessarily 0..N−1) with a score each. */
const scoredTask = fc
  .uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 9 })
  .chain((indices) =>
    fc.tuple(
      fc.constant(indices),
      fc.array(gridScore, { minLength: indices.length, maxLength: indices.length }),
    ),
  );

function candidatesOf(indices: readonly number[], scores: readonly number[]): Candidate[] {
  return indices.map((index, i) => ({
    index,
    sampleId: `answer-${i}`,
    score: scores[i] as number,
    correct: null,
  }));
}

/** The documented rule: the highest score wins; equal top scores go to the lowest index. */
function expectedPick(candidates: readonly Candidate[]): { sampleId: string; tie: boolean } {
  const top = Math.max(...candidates.map((c) => c.score as number));
  const tied = candidates.filter((c) => c.score === top).sort((a, b) => a.index - b.index);
  return { sampleId: (tied[0] as Candidate).sampleId, tie: tied.length > 1 };
}

/** A permutation of 0..n−1, drawn as random sort keys. */
function permutation(n: number): fc.Arbitrary<number[]> {
  return fc
    .array(fc.double({ noNaN: true }), { minLength: n, maxLength: n })
    .map((keys) => keys.map((key, i) => ({ key, i })).sort((a, b) => a.key - b.key || a.i - b.i))
    .map((sorted) => sorted.map((entry) => entry.i));
}

describe("selection contract (properties)", () => {
  it("picks the same answer whatever order the candidates come in", () => {
    fc.assert(
      fc.property(
        scoredTask.chain(([indices, scores]) =>
          fc.tuple(fc.constant(candidatesOf(indices, scores)), permutation(indices.length)),
        ),
        methodOptions,
        ([candidates, order], options) => {
          const shuffled = order.map((i) => candidates[i] as Candidate);
          const before = selectTask("t", candidates, options);
          const after = selectTask("t", shuffled, options);
          expect(after.selectedSampleId).toBe(before.selectedSampleId);
          expect(after.tie).toBe(before.tie);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("changes the pick under new candidate indices only through the lowest-index tie rule", () => {
    fc.assert(
      fc.property(
        scoredTask.chain(([indices, scores]) =>
          fc.tuple(fc.constant(indices), fc.constant(scores), permutation(indices.length)),
        ),
        methodOptions,
        ([indices, scores, order], options) => {
          // The same answers with the same scores, each under another answer's index.
          const original = candidatesOf(indices, scores);
          const relabelled = original.map((c, i) => ({
            ...c,
            index: indices[order[i] as number] as number,
          }));
          for (const candidates of [original, relabelled]) {
            const expected = expectedPick(candidates);
            const result = selectTask("t", candidates, options);
            expect(result.selectedSampleId).toBe(expected.sampleId);
            expect(result.tie).toBe(expected.tie);
          }
          const a = selectTask("t", original, options);
          const b = selectTask("t", relabelled, options);
          if (!a.tie) expect(b.selectedSampleId).toBe(a.selectedSampleId);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("flags equal top scores as a tie and resolves it to the lowest index", () => {
    const task = fc
      .uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 10 })
      .chain((indices) =>
        fc.record({
          indices: fc.constant(indices),
          // Any value in (0, 1], not only grid points: the tie must not depend on it.
          top: fc.double({ min: 0.001, max: 1, noNaN: true }),
          // Which positions hold the top score: at least two.
          atTop: fc.uniqueArray(fc.nat({ max: indices.length - 1 }), {
            minLength: 2,
            maxLength: indices.length,
          }),
          // The others sit at least 0.1% below the top.
          below: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), {
            minLength: indices.length,
            maxLength: indices.length,
          }),
        }),
      );
    fc.assert(
      fc.property(task, methodOptions, ({ indices, top, atTop, below }, options) => {
        const scores = indices.map((_, i) => (atTop.includes(i) ? top : top * (below[i] ?? 0)));
        const result = selectTask("t", candidatesOf(indices, scores), options);
        expect(result.tie).toBe(true);
        expect(result.tieBreak).toBe("lowest_candidate_index");
        expect(result.selectedIndex).toBe(Math.min(...atTop.map((i) => indices[i] as number)));
      }),
      { numRuns: 500 },
    );
  });

  it("compares exactly k·N − k(k+1)/2 pairs, each at most once", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        (indices, k) => {
          let calls = 0;
          const result = pivotTournament(
            indices,
            (a, b) => {
              calls += 1;
              return a < b ? 0.6 : 0.4;
            },
            { k },
          );
          const n = indices.length;
          const pivots = Math.min(k, n);
          const expected = pivots * n - (pivots * (pivots + 1)) / 2;
          expect(calls).toBe(expected);
          expect(result.comparisons).toHaveLength(expected);
          expect(pivotComparisonCount(n, k)).toBe(expected);
          expect(expected).toBeLessThanOrEqual(n * k);
          const pairs = result.comparisons.map(({ a, b }) => [a, b].sort((x, y) => x - y).join());
          expect(new Set(pairs).size).toBe(pairs.length);
          expect(result.comparisons.every(({ a, b }) => a !== b)).toBe(true);
          expect(result.pivots).toHaveLength(pivots);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** A candidate whose score and correctness may each be unknown. */
const anyCandidate = fc.record({
  score: fc.option(gridScore, { nil: null }),
  correct: fc.option(fc.boolean(), { nil: null }),
});
const anyTask = fc.array(anyCandidate, { minLength: 1, maxLength: 6 });

describe("accuracy contract (properties)", () => {
  it("counts the same tasks for pass@1, selected and oracle; no scored candidate is unsolved", () => {
    fc.assert(
      fc.property(fc.array(anyTask, { maxLength: 30 }), methodOptions, (tasks, options) => {
        const selections = tasks.map((task, t) =>
          selectTask(
            `t${t}`,
            task.map((c, index) => ({ ...c, index, sampleId: `t${t}#${index}` })),
            options,
          ),
        );
        const accuracy = accuracyOf(selections);
        expect(accuracy.selected.of).toBe(accuracy.pass1.of);
        expect(accuracy.oracle.of).toBe(accuracy.pass1.of);
        // Each figure is over the tasks whose correctness is known for all three.
        const known = tasks.filter(
          (task) =>
            task[0]?.correct !== null &&
            (task.some((c) => c.correct === true) || task.every((c) => c.correct === false)) &&
            (task.every((c) => c.score === null) || pickedCorrectness(task) !== null),
        );
        expect(accuracy.pass1.of).toBe(known.length);
        // A task with no scored candidate but known answers is in, and never solved by selection.
        const unscored = tasks.filter((task) => task.every((c) => c.score === null));
        expect(accuracy.unselected).toBe(unscored.length);
        const unscoredKnown = known.filter((task) => task.every((c) => c.score === null));
        expect(accuracy.selected.count).toBeLessThanOrEqual(
          accuracy.selected.of - unscoredKnown.length,
        );
        // The pick is one of the candidates: it never beats the oracle.
        expect(accuracy.selected.count).toBeLessThanOrEqual(accuracy.oracle.count);
        expect(accuracy.pass1.count).toBeLessThanOrEqual(accuracy.oracle.count);
      }),
      { numRuns: 300 },
    );
  });
});

/** Correctness of the candidate best-of-N would pick (highest score, lowest index on ties). */
function pickedCorrectness(task: readonly { score: number | null; correct: boolean | null }[]) {
  let best = -1;
  task.forEach((c, i) => {
    if (c.score !== null && (best === -1 || c.score > (task[best]?.score as number))) best = i;
  });
  return task[best]?.correct ?? null;
}
