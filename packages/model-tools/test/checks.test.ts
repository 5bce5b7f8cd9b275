import { sample, tinyModel } from "@assay/test-support/tiny-models";
import {
  createVerifierScorer,
  loadModel,
  type VerifierDetail,
  type VerifierModel,
} from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillerText } from "../src/check/filler.js";
import { checkModel } from "../src/index.js";

const LENGTHS = [500, 2000, 2100, 4000, 8000];

describe("the model checks on the tiny models", () => {
  let decoder: VerifierModel;
  beforeAll(async () => {
    decoder = await loadModel(await tinyModel(), { threads: 2 });
  });
  afterAll(() => decoder.close());

  it("passes all three checks and reads the prompt's last token at every length (decoder, probe head)", async () => {
    const rows = await checkModel(decoder, { lengths: LENGTHS });
    expect(rows).toHaveLength(20);
    for (const row of rows)
      expect(row, `${row.check} @ ${row.length}: ${row.detail}`).toMatchObject({ passed: true });
    expect(rows.find((r) => r.length === 2000 && r.check === "fit untouched")?.detail).toMatch(
      /identical/,
    );
    expect(rows.find((r) => r.length === 2100 && r.check === "fit untouched")?.detail).toMatch(
      /only the question's tail/,
    );
    // Qwen3 appends nothing: the head reads the template's final "?", the last token.
    expect(rows.find((r) => r.length === 500 && r.check === "score position")?.detail).toMatch(
      /^reads token (\d+) of \1: id \d+ "\?", the prompt's last; nothing after it$/,
    );
  });

  it("passes all three checks on the encoder and on the distribution head (folder path)", async () => {
    for (const options of [{ kind: "encoder" as const }, { head: "distribution" as const }]) {
      const rows = await checkModel(await tinyModel(options), { lengths: [500, 4000], threads: 2 });
      for (const row of rows)
        expect(
          row,
          `${JSON.stringify(options)} ${row.check} @ ${row.length}: ${row.detail}`,
        ).toMatchObject({ passed: true });
      // The distribution decoder carries a pairwise judge: both answers survive the cut too.
      const pairwise = rows.filter((r) => r.check === "pairwise answers survive");
      expect(pairwise.map((r) => r.length)).toEqual(options.head === undefined ? [] : [500, 4000]);
    }
  });

  it("gives 50 distinct answers to one 4,000-token question 50 distinct scores (zero ties)", async () => {
    const question = fillerText(decoder.tokenizer, 4000);
    const scorer = createVerifierScorer(decoder, { model: decoder.name });
    const answers = Array.from(
      { length: 50 },
      (_, i) =>
        `Option ${String.fromCharCode(65 + (i % 26))}${i}: the compound is number ${i * 7}.`,
    );
    const scores = await Promise.all(answers.map((a) => scorer(sample(question, a), {})));
    const values = scores.map((s) => (s.status === "scored" ? s.value : Number.NaN));
    expect(values.every(Number.isFinite)).toBe(true);
    expect(new Set(values).size).toBe(50);
    for (const score of scores) {
      const detail = score.detail as VerifierDetail;
      expect(detail.truncated).toBe(true);
      expect(detail.truncations[0]).toMatchObject({ slot: "question", refused: false });
    }
  });

  it("scores an over-long answer as unscored overflow by default and as unreliable under keep-answer-tail", async () => {
    const answer = fillerText(decoder.tokenizer, 2500, 11);
    const strict = await createVerifierScorer(decoder, { model: decoder.name })(
      sample("Q?", answer),
      {},
    );
    expect(strict).toMatchObject({ status: "unscored", reason: "overflow" });
    const strictDetail = strict.detail as VerifierDetail;
    expect(strictDetail.truncations[0]).toMatchObject({ refused: true, policy: "error" });
    expect(strictDetail.usage.inputTokens).toBe(0);

    const tail = await createVerifierScorer(decoder, {
      model: decoder.name,
      overflow: "keep-answer-tail",
    })(sample("Q?", answer), {});
    expect(tail.status).toBe("scored");
    const tailDetail = tail.detail as VerifierDetail;
    expect(tailDetail).toMatchObject({ unreliable: true, truncated: true });
    expect(tailDetail.truncations[0]).toMatchObject({ slot: "answer", policy: "keep-answer-tail" });
    expect(tailDetail.usage.inputTokens).toBeLessThanOrEqual(2048);
    expect(tailDetail.usage).toMatchObject({ outputTokens: 0, device: "cpu", calls: 1 });
    expect(tailDetail.usage.computeMs).toBeGreaterThan(0);
  });
});
