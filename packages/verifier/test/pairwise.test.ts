import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AssayConfigSchema,
  createPairwiseScorer,
  fitPrompt,
  loadModel,
  type PairwiseDetail,
  resolvePrompt,
  VerifierArgsError,
  type VerifierModel,
} from "../src/index.js";

const QUESTION = "Which compound is released by the plant?";

function pair(answerA: string, answerB: string, question = QUESTION) {
  return sample(question, "", { answer_a: answerA, answer_b: answerB });
}

describe("pairwise judge", () => {
  let model: VerifierModel;
  let small: VerifierModel;
  beforeAll(async () => {
    model = await loadModel(await tinyModel({ head: "distribution" }), { threads: 2 });
    small = await loadModel(await tinyModel({ head: "distribution", maxLength: 96 }), {
      threads: 2,
    });
  });
  afterAll(async () => {
    await model.close();
    await small.close();
  });

  it("gives P(A better than B) from one forward pass over both answers", async () => {
    const judge = createPairwiseScorer(model);
    const score = await judge(pair("C. Allomone", "B. Kairomone"), {});
    expect(score.status).toBe("scored");
    const detail = score.detail as PairwiseDetail;
    expect(detail.head).toBe("pairwise");
    expect(detail.choices).toEqual(["A", "B"]);
    expect(detail.mass).toBeGreaterThan(0);
    expect(detail.usage.calls).toBe(1);
    expect(detail.truncations).toEqual([
      expect.objectContaining({ truncated: false, refused: false, criterion: "pairwise" }),
    ]);
    expect(score.calls?.usage.inputTokens).toBeGreaterThan(20);
    // The other order is another prompt: its own probability, not 1 − this one by fiat.
    const swapped = await judge(pair("B. Kairomone", "C. Allomone"), {});
    expect(swapped.status === "scored" && swapped.value).not.toBe(
      score.status === "scored" && 1 - score.value,
    );
  });

  it("keeps both answers whole and cuts only the question when the prompt is too long", async () => {
    const config = small.config.pairwise;
    if (config === undefined) throw new Error("the tiny decoder has a pairwise judge");
    const longQuestion = `${"Consider the plant and what it releases. ".repeat(20)}Which one?`;
    const prompt = resolvePrompt(
      config.template,
      pair("C. Allomone", "B. Kairomone", longQuestion),
      "",
    );
    if (!prompt.ok) throw new Error(prompt.message);
    const fit = fitPrompt(small.tokenizer, prompt.pieces, {
      maxLength: 96,
      margin: 8,
      policy: "error",
    });
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.ids.length).toBeLessThanOrEqual(96);
    expect(fit.text).toContain("[Answer A]\nC. Allomone\n");
    expect(fit.text).toContain("[Answer B]\nB. Kairomone\n");
    expect(fit.text.endsWith("Better: ")).toBe(true);
    expect(fit.record).toMatchObject({ truncated: true, slot: "question", refused: false });
  });

  it("refuses a pair whose answers do not fit whole, with a refusal record, never cutting one", async () => {
    const judge = createPairwiseScorer(small);
    const long = "The plant releases an allomone to deter herbivores. ".repeat(8);
    const score = await judge(pair(long, "B. Kairomone"), {});
    expect(score).toMatchObject({ status: "unscored", reason: "overflow" });
    expect(score.status === "unscored" && score.message).toMatch(/`answer_a`, `answer_b`/);
    // The score row's criterion, so the record joins its score on the whole key.
    expect(score.calls?.truncations).toEqual([
      expect.objectContaining({ refused: true, keptTokens: 0, criterion: "" }),
    ]);
    expect(score.calls?.usage).toMatchObject({ prompts: 0, forwardPasses: 0 });
  });

  it("leaves a sample without both answers unscored", async () => {
    const judge = createPairwiseScorer(model);
    const score = await judge(sample(QUESTION, "", { answer_a: "C" }), {});
    expect(score).toMatchObject({ status: "unscored", reason: "invalid_target" });
  });

  it("refuses a model without a pairwise section, and a template without both answer slots", async () => {
    const probe = await loadModel(await tinyModel(), { threads: 1 });
    try {
      expect(() => createPairwiseScorer(probe)).toThrow(VerifierArgsError);
      expect(() => createPairwiseScorer(probe)).toThrow(/no `pairwise` section/);
    } finally {
      await probe.close();
    }
    const config = {
      ...model.config,
      pairwise: { template: [{ slot: "question" }, { slot: "answer_a" }] },
    };
    const parsed = AssayConfigSchema.safeParse(config);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.message).toMatch(/needs exactly one .*answer_b.* piece, got 0/);
  });
});
