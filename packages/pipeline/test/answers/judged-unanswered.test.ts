import { RunSpecSchema, scored } from "@assay/core";
import { defineScorer, exact, ScorerRegistry } from "@assay/scorers";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, expect, it } from "vitest";
import { pgliteTarget } from "../store-targets.js";
import { jsonl, tempFiles } from "../temp-files.js";
import { runJoined } from "./run-joined.js";

// A pairwise judge is never asked to compare a candidate that gave no text (a refusal,
// only tool calls, a reply cut off): judged, its "" would lose to any answer, or tie with
// another "". Such a pair's result is stored unscored with the candidate's reason, and the
// pairs between answered candidates are judged as before.

const files = tempFiles("assay-judged-unanswered-");
const target = pgliteTarget();
afterAll(() => target.cleanup());

/** A judge on the CPU that prefers the longer answer and remembers every pair it saw. */
function recordingJudge(seen: [string, string][]) {
  return defineScorer({
    name: "longer_judge",
    pool: "cpu",
    description: "test judge: P(a better) is high when answer a is longer",
    args: exact.args,
    create: () => (sample) => {
      const a = String(sample.metadata.answer_a);
      const b = String(sample.metadata.answer_b);
      seen.push([a, b]);
      return scored(a.length > b.length ? 0.9 : 0.1);
    },
  });
}

const text = (content: string) => ({ role: "assistant", content, refusal: null });
const refusal = { role: "assistant", content: null, refusal: "I can't help with that." };

it("stores the pairs of a refused candidate unscored with its reason, and judges the rest", async () => {
  const seen: [string, string][] = [];
  const registry = new ScorerRegistry([recordingJudge(seen)]);
  const spec = RunSpecSchema.parse({
    default: { scorers: [{ name: "exact" }] },
    selection: {
      verifier: "exact",
      method: "pivot_tournament",
      k: 3,
      judge: { name: "longer_judge" },
    },
  });
  const dataset = files.write(
    "reference.jsonl",
    jsonl([{ id: "q1", question: "Capital of France?", target: "Paris" }]),
  );
  const choices = [text("Paris"), refusal, text("Paris, France")].map((message, index) => ({
    index,
    message,
    finish_reason: "stop",
  }));
  const answers = files.write(
    "answers.jsonl",
    jsonl([
      {
        custom_id: "q1",
        response: {
          status_code: 200,
          body: { model: "gpt-x", choices, usage: { prompt_tokens: 9, completion_tokens: 6 } },
        },
        error: null,
      },
    ]),
  );
  const store = await target.open();
  const runId = "judged-unanswered";
  const outcome = await runJoined(store, registry, { runId, dataset, spec, files: [answers] });
  expect(outcome.complete).toBe(true);

  const pairs = (await queryRows(
    store,
    `SELECT sample_id, status, reason, detail->>'message' AS message FROM scores
     WHERE run_id = '${runId}' AND scorer = 'longer_judge' ORDER BY sample_id`,
  )) as { sample_id: string; status: string; reason: string | null; message: string | null }[];
  // Every pair of the three candidates, in both orders (k = 3 pivots of 3).
  expect(pairs.map((p) => p.sample_id)).toEqual([
    "q1#pair-0-1",
    "q1#pair-0-2",
    "q1#pair-1-0",
    "q1#pair-1-2",
    "q1#pair-2-0",
    "q1#pair-2-1",
  ]);
  for (const pair of pairs) {
    const withRefused = /-1$|pair-1-/.test(pair.sample_id);
    if (withRefused) {
      expect(pair).toMatchObject({
        status: "unscored",
        reason: "refusal",
        message: "candidate 1 gave no answer to judge (refusal): I can't help with that.",
      });
    } else {
      expect(pair).toMatchObject({ status: "scored", reason: null });
    }
  }
  // The judge saw the two answered candidates only, in both orders; never an empty answer.
  expect(seen).toHaveLength(2);
  expect(seen).toEqual(
    expect.arrayContaining([
      ["Paris", "Paris, France"],
      ["Paris, France", "Paris"],
    ]),
  );
  // The pick is an answered candidate: the judge's preferred, the longer one.
  const [selection] = (await queryRows(
    store,
    `SELECT selected_index FROM selections WHERE run_id = '${runId}'`,
  )) as { selected_index: number }[];
  expect(selection?.selected_index).toBe(2);
});
