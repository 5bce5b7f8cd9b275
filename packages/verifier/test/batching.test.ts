import type { TinyModelOptions } from "@assay/model-tools";
import { fillerText } from "@assay/model-tools";
import { tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, describe, expect, it } from "vitest";
import {
  distributionValue,
  fitPrompt,
  loadModel,
  probeValue,
  resolvePrompt,
  type VerifierModel,
} from "../src/index.js";

const LENGTHS = [12, 300, 40, 1500, 700, 2100, 90, 5];

/** Fitted ids of prompts with questions of mixed lengths. */
function inputs(model: VerifierModel): number[][] {
  return LENGTHS.map((length, i) => {
    const prompt = resolvePrompt(
      model.config.template,
      { question: fillerText(model.tokenizer, length, i), answer: `answer ${i}`, metadata: {} },
      model.config.criteria?.[0]?.text ?? "",
    );
    if (!prompt.ok) throw new Error(prompt.message);
    const fit = fitPrompt(model.tokenizer, prompt.pieces, {
      maxLength: model.config.max_length,
      margin: 8,
      policy: "error",
    });
    if (!fit.ok) throw new Error(fit.message);
    return fit.ids;
  });
}

function headValue(model: VerifierModel, vector: Float32Array): number {
  if (model.probe !== null)
    return probeValue({ probe: model.probe, bias: 0, sigmoid: true }, vector).value;
  return distributionValue(vector, model.scaleIds ?? []).value ?? Number.NaN;
}

const cases: [string, TinyModelOptions][] = [
  ["decoder, left padding, probe", { paddingSide: "left" }],
  ["decoder, right padding, probe", { paddingSide: "right" }],
  ["decoder, right padding, distribution", { paddingSide: "right", head: "distribution" }],
  ["decoder, left padding, distribution", { paddingSide: "left", head: "distribution" }],
  ["encoder, right padding, probe", { kind: "encoder" }],
];

describe("batched vs single scores", () => {
  const models: VerifierModel[] = [];
  afterAll(async () => {
    for (const model of models) await model.close();
  });

  it.each(cases)("agree over mixed lengths (%s)", async (_, options) => {
    const model = await loadModel(await tinyModel(options), {
      threads: 2,
      batch: { maxBatchTokens: 8192, maxWaitMs: 20 },
    });
    models.push(model);
    expect(model.paddingSide).toBe(options.paddingSide ?? "right");
    const output = model.config.head.output;
    const rows = inputs(model);
    const single: number[] = [];
    for (const ids of rows)
      single.push(headValue(model, (await model.forward(ids, output)).output));
    const before = model.stats();
    expect(before.batches).toBe(rows.length);
    const batched = await Promise.all(
      rows.map(async (ids) => headValue(model, (await model.forward(ids, output)).output)),
    );
    const after = model.stats();
    expect(after.batches - before.batches).toBeLessThan(rows.length);
    expect(after.computedTokens - before.computedTokens).toBeGreaterThan(
      after.realTokens - before.realTokens,
    );
    for (const [i, value] of batched.entries()) {
      expect(Number.isFinite(value)).toBe(true);
      expect(Math.abs(value - (single[i] ?? Number.NaN))).toBeLessThan(1e-5);
    }
    // A right-padded row starts at 0 in every batch: its score does not depend on which
    // rows shared its forward pass, exactly.
    if (model.paddingSide === "right") expect(batched).toEqual(single);
    expect(new Set(batched).size).toBe(rows.length);
  });
});
