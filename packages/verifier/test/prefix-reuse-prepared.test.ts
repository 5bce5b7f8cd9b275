import { join } from "node:path";
import type { Sample } from "@assay/core";
import { makeTinyModel, prepareModel, tinyDistributionTemplates } from "@assay/model-tools";
import { preparedPair } from "@assay/test-support/prepared-models";
import { sample, tempRoot } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVerifierScorer, loadModel, PREPARED, type VerifierModel } from "../src/index.js";
import {
  CRITERIA,
  REUSE_TOLERANCE,
  STEPS,
  scoreNumbers,
  worstDifference,
} from "./reuse-fixtures.js";

const args = {
  criteria: CRITERIA,
  variants: tinyDistributionTemplates(),
  repetitions: 2,
};
const trajectory = { ...sample("Which compound is released?", STEPS.join("\n")), steps: STEPS };

const models: VerifierModel[] = [];
async function load(dir: string, options: Parameters<typeof loadModel>[1]) {
  const model = await loadModel(dir, options);
  models.push(model);
  return model;
}
afterAll(async () => {
  for (const model of models) await model.close();
});

/** The original export without reuse, and its prepared copy with reuse, scoring `input`. */
async function scoreBoth(
  original: VerifierModel,
  prepared: VerifierModel,
  input: Sample = trajectory,
) {
  const [reference, reused] = await Promise.all([
    createVerifierScorer(original, { ...args, model: original.name })(input, {}),
    createVerifierScorer(prepared, { ...args, model: prepared.name })(input, {}),
  ]);
  return { reference, reused };
}

describe.each(["distribution", "probe"] as const)("a prepared with-past graph, %s head", (head) => {
  let original: VerifierModel;
  let prepared: VerifierModel;
  beforeAll(async () => {
    const pair = await preparedPair({ head, withPast: true });
    original = await load(pair.original, { threads: 1, reusePrefixes: false });
    prepared = await load(pair.prepared, { threads: 1 });
  });

  it("keeps its export's past inputs and present outputs and reuses prefixes", () => {
    expect(prepared.prepared).toBe(true);
    expect(prepared.reusesPrefixes).toBe(true);
    const past = original.session.inputNames.filter((name) => name.startsWith("past_key_values."));
    const present = original.session.outputNames.filter((name) => name.startsWith("present."));
    expect(past).toHaveLength(4);
    expect(prepared.session.inputNames).toEqual(expect.arrayContaining(past));
    expect(prepared.session.outputNames).toEqual(
      expect.arrayContaining([...present, prepared.config.head.output]),
    );
    expect(prepared.config.head.output).toBe(
      head === "distribution" ? PREPARED.logprobs : PREPARED.hidden,
    );
  });

  it("scores like the original export without reuse, and counts every token once", async () => {
    const { reference, reused } = await scoreBoth(original, prepared);
    expect(worstDifference(scoreNumbers(reused), scoreNumbers(reference))).toBeLessThan(
      REUSE_TOLERANCE,
    );
    const used = reused.calls?.usage;
    const sent = reference.calls?.usage.inputTokens ?? 0;
    expect(reference.calls?.usage.cachedInputTokens).toBe(0);
    expect((used?.inputTokens ?? 0) + (used?.cachedInputTokens ?? 0)).toBe(sent);
    expect(sent / (used?.inputTokens ?? sent)).toBeGreaterThan(3);
  });
});

describe("a full-vocabulary with-past export", () => {
  it("prepares into a graph that reuses prefixes and returns G log-probabilities per row", async () => {
    const dir = await makeTinyModel(join(tempRoot, "full-vocab-with-past"), {
      fullVocab: true,
      withPast: true,
    });
    const out = await prepareModel(dir, join(tempRoot, "full-vocab-with-past-prepared"));
    // Rows of full-vocabulary logits are 600 KB each: small batches keep the original in memory.
    const batch = { maxBatchTokens: 512 };
    const original = await load(dir, { threads: 2, batch, reusePrefixes: false });
    const prepared = await load(out.dir, { threads: 2, batch });
    expect(prepared.reusesPrefixes).toBe(true);
    const input = sample("Which compound is released?", "C. Allomone, it repels a predator.");
    const { reference, reused } = await scoreBoth(original, prepared, input);
    expect(worstDifference(scoreNumbers(reused), scoreNumbers(reference))).toBeLessThan(
      REUSE_TOLERANCE,
    );
    expect(reused.calls?.usage.cachedInputTokens).toBeGreaterThan(0);
    const perRow = (model: VerifierModel) => model.outputTotals().bytes / model.outputTotals().rows;
    expect(perRow(original)).toBeGreaterThan(1000 * perRow(prepared));
  });
});
