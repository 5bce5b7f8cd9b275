import { fillerText, tinyPairwiseConfig } from "@assay/model-tools";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AssayConfigSchema,
  fitPrompt,
  loadTokenizer,
  resolvePrompt,
  type VerifierTokenizer,
} from "../src/index.js";

let tokenizer: VerifierTokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer(await tinyModel({ head: "distribution" }));
});

const template = AssayConfigSchema.shape.pairwise.unwrap().parse(tinyPairwiseConfig()).template;

describe("fitting two answers", () => {
  it("keeps both answers whole or refuses the call, whatever the lengths and window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 40, max: 400 }),
        fc.constantFrom("error" as const, "keep-answer-tail" as const),
        (questionTokens, aTokens, bTokens, maxLength, policy) => {
          const question = fillerText(tokenizer, questionTokens);
          const answerA = `first ${fillerText(tokenizer, aTokens, 1)} end-a`;
          const answerB = `second ${fillerText(tokenizer, bTokens, 2)} end-b`;
          const prompt = resolvePrompt(
            template,
            sample(question, "", { answer_a: answerA, answer_b: answerB }),
            "",
          );
          if (!prompt.ok) throw new Error(prompt.message);
          const fit = fitPrompt(tokenizer, prompt.pieces, { maxLength, margin: 8, policy });
          if (!fit.ok) {
            expect(fit.record).toMatchObject({ refused: true, keptTokens: 0 });
            return;
          }
          expect(fit.ids.length).toBeLessThanOrEqual(maxLength);
          expect(fit.text).toContain(`\n[Answer A]\n${answerA}\n`);
          expect(fit.text).toContain(`\n[Answer B]\n${answerB}\n`);
          expect(fit.record.unreliable).toBe(false);
          expect(fit.record.slot === null || fit.record.slot === "question").toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
