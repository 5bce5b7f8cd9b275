import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Candidate,
  type PairJudgment,
  pairPrompts,
  type SelectOptions,
  selectionRecordOf,
  selectTask,
} from "../src/index.js";

// Tasks no comparison can decide: one candidate (no pair to judge), or a judged tournament
// whose judge compared no pair in both orders. fast-check prints the seed and path of a
// failing run; pass them back as `{ seed, path }` to replay it.

const JUDGE_PLAN = { k: 2, seed: 5 };

/** Every method a run can name; the judged tournament gets the task's stored judgments. */
type Method = "best_of_n" | "derived_tournament" | "judged_tournament";
const METHODS: readonly Method[] = ["best_of_n", "derived_tournament", "judged_tournament"];

function select(method: Method, candidates: readonly Candidate[], judgments: PairJudgment[]) {
  const options: SelectOptions =
    method === "best_of_n" ? { method } : { method: "pivot_tournament", ...JUDGE_PLAN };
  return selectTask(
    "t",
    candidates,
    options,
    method === "judged_tournament" ? judgments : undefined,
  );
}

const score = fc.integer({ min: 0, max: 4 }).map((v) => v / 4);

/**
 * Stored judgments of a task's pair prompts in which no pair has both orders scored: each
 * pair kept with none, one order, or both with one left unscored (as an overflow stores it).
 */
function unjudgedPairs(indices: readonly number[]): fc.Arbitrary<PairJudgment[]> {
  const prompts = pairPrompts("t", indices, JUDGE_PLAN);
  const pairs = prompts.length / 2;
  const stored = fc.constantFrom("none", "first", "second", "first unscored", "second unscored");
  return fc.array(stored, { minLength: pairs, maxLength: pairs }).chain((kept) =>
    fc.array(score, { minLength: pairs, maxLength: pairs }).map((probabilities) =>
      kept.flatMap((how, pair) => {
        const [ab, ba] = [prompts[2 * pair], prompts[2 * pair + 1]].map((p) => ({
          first: p?.first as number,
          second: p?.second as number,
          probability: probabilities[pair] as number,
        })) as [PairJudgment, PairJudgment];
        if (how === "first") return [ab];
        if (how === "second") return [ba];
        if (how === "first unscored") return [{ ...ab, probability: null }, ba];
        if (how === "second unscored") return [ab, { ...ba, probability: null }];
        return [];
      }),
    ),
  );
}

/** N candidates 0..N−1, each scored by the verifier or not, with judgments deciding nothing. */
const uncomparedTask = fc
  .array(fc.option(score, { nil: null }), { minLength: 1, maxLength: 6 })
  .chain((scores) => {
    const candidates = scores.map(
      (s, index): Candidate => ({ index, sampleId: `t#${index}`, score: s, correct: index === 0 }),
    );
    return fc.tuple(fc.constant(candidates), unjudgedPairs(candidates.map((c) => c.index)));
  });

/** A task with exactly one candidate the verifier scored, at any position among 1..6. */
const oneScoredTask = fc
  .record({ n: fc.integer({ min: 1, max: 6 }), at: fc.nat(), value: score })
  .chain(({ n, at, value }) => {
    const scoredAt = at % n;
    const candidates = Array.from(
      { length: n },
      (_, index): Candidate => ({
        index,
        sampleId: `t#${index}`,
        score: index === scoredAt ? value : null,
        correct: index === scoredAt,
      }),
    );
    return fc.tuple(
      fc.constant(candidates),
      fc.constant(scoredAt),
      unjudgedPairs(candidates.map((c) => c.index)),
    );
  });

/** The documented best-of-N pick: the highest verifier score, ties to the lowest index. */
function bestOfNPick(candidates: readonly Candidate[]): number | null {
  const scored = candidates.filter((c) => c.score !== null);
  if (scored.length === 0) return null;
  const top = Math.max(...scored.map((c) => c.score as number));
  return Math.min(...scored.filter((c) => c.score === top).map((c) => c.index));
}

describe("a task no comparison decides", () => {
  it("with one scored candidate, picks it under every method and says why", () => {
    fc.assert(
      fc.property(oneScoredTask, ([candidates, scoredAt, judgments]) => {
        const selections = METHODS.map((method) => select(method, candidates, judgments));
        expect(selections.map((s, i) => [METHODS[i], s.selectedIndex, s.selectedCorrect])).toEqual(
          METHODS.map((method) => [method, scoredAt, true]),
        );
        for (const selection of selections) {
          expect(selectionRecordOf(selection).detail.reason).toBe("single candidate");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("under a judge that compared no pair, picks best-of-N's candidate and says why", () => {
    fc.assert(
      fc.property(uncomparedTask, ([candidates, judgments]) => {
        const selection = select("judged_tournament", candidates, judgments);
        const expected = bestOfNPick(candidates);
        const scored = candidates.filter((c) => c.score !== null).length;
        expect(selection.selectedIndex).toBe(expected);
        expect(selection.pointwise?.selectedIndex).toBe(expected);
        expect(selection.pairwise?.judgedPairs).toBe(0);
        expect(selectionRecordOf(selection).detail.reason).toBe(
          scored === 0
            ? "no scored candidate"
            : scored === 1
              ? "single candidate"
              : "no judged pair",
        );
      }),
      { numRuns: 300 },
    );
  });

  it("leaves a task unpicked, under every method, only when no candidate was scored", () => {
    fc.assert(
      fc.property(uncomparedTask, ([candidates, judgments]) => {
        const anyScored = candidates.some((c) => c.score !== null);
        for (const method of METHODS) {
          const selection = select(method, candidates, judgments);
          expect({ method, unpicked: selection.selectedIndex === null }).toEqual({
            method,
            unpicked: !anyScored,
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  it("still lets the judge decide a task where it compared a pair, verifier score or not", () => {
    const candidates: Candidate[] = [
      { index: 0, sampleId: "t#0", score: null, correct: true },
      { index: 1, sampleId: "t#1", score: null, correct: false },
    ];
    const judgments = [
      { first: 0, second: 1, probability: 0.9 },
      { first: 1, second: 0, probability: 0.2 },
    ];
    const selection = select("judged_tournament", candidates, judgments);
    expect(selection.selectedIndex).toBe(0);
    expect(selectionRecordOf(selection).detail.reason).toBeUndefined();
  });
});
