import type { Score } from "@assay/core";
import { fillerText } from "@assay/model-tools";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  loadModel,
  type VerifierDetail,
  type VerifierModel,
} from "../src/index.js";

const STEPS = [
  "Pheromones signal members of the same species.",
  "Allomones benefit the emitter.",
  "The compound repels a predator, so it helps the emitter.",
  "So the answer is C. Allomone.",
];

function scoredValue(score: Score): number {
  if (score.status !== "scored") throw new Error(`unscored: ${score.reason}`);
  return score.value;
}

describe("trajectories", () => {
  let model: VerifierModel;
  beforeAll(async () => {
    // A generous wait, so the prefixes' passes meet in the batcher.
    model = await loadModel(await tinyModel({ head: "distribution" }), {
      threads: 2,
      batch: { maxWaitMs: 20 },
    });
  });
  afterAll(() => model.close());

  it("scores every prefix in shared batches and keeps the answer's score as the value", async () => {
    const scorer = createVerifierScorer(model, { model: model.name, repetitions: 2 });
    const question = "Which compound is released?";
    const answer = STEPS.join("\n");
    const before = model.stats();
    const score = await scorer({ ...sample(question, answer), steps: STEPS }, {});
    const after = model.stats();
    const detail = score.detail as VerifierDetail;
    // 2 criteria × 2 variants, for the answer and each of the 4 prefixes.
    expect(after.rows - before.rows).toBe(4 * 5);
    expect(after.batches - before.batches).toBeLessThan(4 * 5);
    expect(detail.usage.calls).toBe(4 * 5);
    expect(detail.truncations).toHaveLength(4);
    expect(detail.progress).toHaveLength(STEPS.length);

    // Batched equals single: each prefix scored alone, one after the other.
    for (const [i, value] of (detail.progress ?? []).entries()) {
      const prefix = STEPS.slice(0, i + 1).join("\n");
      const alone = scoredValue(await scorer(sample(question, prefix), {}));
      expect(Math.abs((value ?? Number.NaN) - alone)).toBeLessThan(1e-5);
    }
    const plain = scoredValue(await scorer(sample(question, answer), {}));
    expect(Math.abs(scoredValue(score) - plain)).toBeLessThan(1e-5);
    expect(Math.abs((detail.progress?.at(-1) ?? Number.NaN) - plain)).toBeLessThan(1e-5);
  });

  it("leaves a prefix that cannot be scored null and still scores the answer", async () => {
    const scorer = createVerifierScorer(model, { model: model.name });
    const steps = ["Short step.", fillerText(model.tokenizer, 3000), "Done."];
    const score = await scorer({ ...sample("q", "C. Allomone"), steps }, {});
    expect(score.status).toBe("scored");
    const progress = (score.detail as VerifierDetail).progress ?? [];
    expect(progress).toHaveLength(3);
    expect(progress[0]).toBeTypeOf("number");
    expect(progress.slice(1)).toEqual([null, null]);
  });

  it("adds no curve to a sample without steps", async () => {
    const scorer = createVerifierScorer(model, { model: model.name });
    for (const steps of [undefined, []]) {
      const score = await scorer({ ...sample("q", "C. Allomone"), ...(steps && { steps }) }, {});
      expect((score.detail as VerifierDetail).progress).toBeUndefined();
      expect((score.detail as VerifierDetail).usage.calls).toBe(2);
    }
  });
});
