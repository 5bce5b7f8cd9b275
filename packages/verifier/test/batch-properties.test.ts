import { fillerText } from "@assay/model-tools";
import { tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  distributionValue,
  fitPrompt,
  loadModel,
  ModelRunner,
  probeValue,
  resolvePrompt,
  type VerifierModel,
} from "../src/index.js";

const WINDOW = 256;
const SCALE_IDS = [32, 33, 34, 35];

// A decoder whose tokenizer appends EOS and an encoder wrapped as [CLS] $A [SEP]: the
// score position sits before the appended token, wherever the padding goes.
const models = new Map<string, VerifierModel>();
beforeAll(async () => {
  for (const kind of ["decoder", "encoder"] as const) {
    const specialTokens = kind === "decoder" ? "eos" : "cls-sep";
    const dir = await tinyModel({ kind, specialTokens, maxLength: WINDOW });
    models.set(kind, await loadModel(dir, { threads: 1 }));
  }
});
afterAll(async () => {
  for (const model of models.values()) await model.close();
});

function fitted(model: VerifierModel, question: string, answer: string): number[] | null {
  const prompt = resolvePrompt(model.config.template, { question, answer, metadata: {} }, "");
  if (!prompt.ok) throw new Error(prompt.message);
  const fit = fitPrompt(model.tokenizer, prompt.pieces, {
    maxLength: WINDOW,
    margin: 8,
    policy: "keep-answer-tail",
  });
  return fit.ok ? fit.ids : null;
}

/** The head values a row gives: the probe, and on a decoder the distribution too. */
async function headValues(model: VerifierModel, runner: ModelRunner, rows: number[][]) {
  const probe = { probe: model.probe as Float32Array, bias: 0, sigmoid: true };
  const hidden = await runner.run(rows, "last_hidden_state");
  const logits = model.session.outputNames.includes("logits")
    ? await runner.run(rows, "logits")
    : [];
  return rows.map((_, i) => [
    probeValue(probe, hidden[i] as Float32Array).value,
    ...(logits[i] === undefined ? [] : [distributionValue(logits[i], SCALE_IDS).value ?? -1]),
  ]);
}

const promptCase = fc.record({
  question: fc.integer({ min: 0, max: 3 * WINDOW }),
  answer: fc.integer({ min: 1, max: WINDOW }),
  seed: fc.nat(40),
});

describe("batched vs single scores (property, real tiny ONNX models)", () => {
  // Right-padded rows start at 0 in every batch: equal bit for bit, so two runs that batch a
  // row differently (other rows, other arrival times) store the same score. A left-padded
  // row moves with its batch's longest row, which changes rounding: within 1e-5.
  it("are equal right-padded, within 1e-5 left-padded, for any mix of lengths, encoder and decoder", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("decoder", "encoder"),
        fc.constantFrom("left" as const, "right" as const),
        fc.array(promptCase, { minLength: 2, maxLength: 6 }),
        async (kind, side, cases) => {
          const model = models.get(kind) as VerifierModel;
          const rows = cases
            .map((c) =>
              fitted(
                model,
                fillerText(model.tokenizer, c.question, c.seed),
                fillerText(model.tokenizer, c.answer, c.seed + 1),
              ),
            )
            .filter((ids) => ids !== null);
          const { session, io, padId } = model.runner;
          const runner = new ModelRunner(session, io, side, padId, model.tokenizer.appendedTokens);
          const batched = await headValues(model, runner, rows);
          for (const [i, ids] of rows.entries()) {
            const [single] = await headValues(model, runner, [ids]);
            if (side === "right") expect(batched[i]).toEqual(single);
            for (const [j, value] of (single ?? []).entries())
              expect(Math.abs(value - (batched[i]?.[j] ?? Number.NaN))).toBeLessThan(1e-5);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
