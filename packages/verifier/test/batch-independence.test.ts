import type { Sample, Score } from "@assay/core";
import { tinyDistributionTemplates } from "@assay/model-tools";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVerifierScorer, loadModel, type VerifierModel } from "../src/index.js";
import { CRITERIA, REUSE_TOLERANCE, scoreNumbers, worstDifference } from "./reuse-fixtures.js";

// What a report prints must survive a rerun: a sample's scores may not depend on which
// samples were scored beside it, nor on the batch limits. Right-padded, so the path
// without reuse is exact too (a left-padded row moves with its batch: within 1e-5).
const word = fc.constantFrom("light", "blue", "air", "scatters", "so", "the", "C.", "Allomone");
const words = (max: number) => fc.array(word, { minLength: 1, maxLength: max });
const trajectory = fc.record({
  question: words(30).map((w) => `${w.join(" ")}?`),
  steps: fc.array(
    words(12).map((w) => `${w.join(" ")}.`),
    { minLength: 1, maxLength: 4 },
  ),
});

const models: Record<"reuse" | "reuseSmallBatches" | "plain", VerifierModel> = {} as never;
beforeAll(async () => {
  const dir = await tinyModel({ head: "distribution", withPast: true, paddingSide: "right" });
  models.reuse = await loadModel(dir, { threads: 1 });
  models.reuseSmallBatches = await loadModel(dir, {
    threads: 1,
    batch: { maxBatchTokens: 300, maxBatchRows: 3 },
  });
  models.plain = await loadModel(dir, { threads: 1, reusePrefixes: false });
});
afterAll(async () => {
  await Promise.all(Object.values(models).map((model) => model.close()));
});

function scorerOf(model: VerifierModel) {
  const score = createVerifierScorer(model, {
    model: model.name,
    criteria: CRITERIA,
    variants: tinyDistributionTemplates(),
    repetitions: 2,
  });
  return async (input: Sample) => scoreNumbers((await score(input, {})) as Score);
}

describe("a sample's scores and the batch (property, real tiny ONNX model)", () => {
  it("are the same bit for bit alone, beside other samples and under other batch limits; reuse equals no reuse within its bound", async () => {
    const reuse = scorerOf(models.reuse);
    const small = scorerOf(models.reuseSmallBatches);
    const plain = scorerOf(models.plain);
    await fc.assert(
      fc.asyncProperty(fc.array(trajectory, { minLength: 2, maxLength: 4 }), async (cases) => {
        const inputs = cases.map((c, i) => ({
          ...sample(c.question, c.steps.join("\n")),
          id: `s${i}`,
          steps: c.steps,
        }));
        const first = inputs[0] as Sample;
        const alone = await reuse(first);
        const [beside] = await Promise.all(inputs.map(reuse));
        expect(beside).toEqual(alone);
        const [underSmall] = await Promise.all(inputs.map(small));
        expect(underSmall).toEqual(alone);
        const plainAlone = await plain(first);
        const [plainBeside] = await Promise.all(inputs.map(plain));
        expect(plainBeside).toEqual(plainAlone);
        expect(worstDifference(alone, plainAlone)).toBeLessThan(REUSE_TOLERANCE);
      }),
      { numRuns: 10 },
    );
  });
});
