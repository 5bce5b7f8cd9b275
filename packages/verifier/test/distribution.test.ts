import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  defineVerifierScorer,
  distributionValue,
  loadModel,
  type VerifierDetail,
  type VerifierModel,
} from "../src/index.js";

describe("distribution head", () => {
  let model: VerifierModel;
  beforeAll(async () => {
    model = await loadModel(await tinyModel({ head: "distribution" }), { threads: 2 });
  });
  afterAll(() => model.close());

  it("averages C criteria × K variants and keeps every value and G-bin distribution", async () => {
    const scorer = createVerifierScorer(model, { model: model.name, repetitions: 3 });
    const score = await scorer(sample("Which compound is released?", "C. Allomone"), {});
    expect(score.status).toBe("scored");
    const detail = score.detail as VerifierDetail;
    expect(detail.head).toBe("distribution");
    expect(detail.scale).toHaveLength(20);
    expect(detail.criteria.map((c) => c.name)).toEqual(["correctness", "completeness"]);
    const values: number[] = [];
    for (const criterion of detail.criteria) {
      expect(criterion.variants.map((v) => v.variant)).toEqual([0, 1, 2]);
      for (const v of criterion.variants) {
        expect(v.distribution).toHaveLength(20);
        expect(v.distribution?.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
        expect(v.mass).toBeGreaterThan(0);
        values.push(v.value ?? Number.NaN);
      }
    }
    expect(new Set(values).size).toBe(6);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(score.status === "scored" && score.value).toBeCloseTo(mean, 12);
    expect(detail.truncations).toHaveLength(6);
    expect(detail.usage.calls).toBe(6);
  });

  it("leaves a sample unscored (no_score_mass) when the scale tokens get zero probability", async () => {
    // The tiny decoder gives the digits 0-9 a −1e9 logit; each is one token, so the scale loads.
    const digits = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    const scorer = createVerifierScorer(model, { model: model.name, head: { scale: digits } });
    const score = await scorer(sample("Which compound is released?", "C. Allomone"), {});
    expect(score).toMatchObject({ status: "unscored", reason: "no_score_mass" });
    const detail = score.detail as VerifierDetail;
    expect(detail.criteria[0]?.variants[0]?.mass).toBe(0);
  });

  it("computes R = Σp·φ/Σp with φ(g) = (g−1)/(G−1)", () => {
    const logits = Float32Array.from([0, Math.log(3), 0, 5]);
    const { value, mass, distribution } = distributionValue(logits, [0, 1, 2]);
    const z = 1 + 3 + 1 + Math.exp(5);
    expect(mass).toBeCloseTo(5 / z, 7);
    expect(distribution).toEqual([0.2, 0.6, 0.2].map((p) => expect.closeTo(p, 7)));
    expect(value).toBeCloseTo(0.6 * 0.5 + 0.2 * 1, 7);
  });

  it("is a gpu-pool ScorerDefinition named verifier that validates its args", async () => {
    const definition = defineVerifierScorer({ models: [model] });
    expect(definition).toMatchObject({ name: "verifier", pool: "gpu" });
    expect(definition.args.safeParse({ model: "x", overflow: "truncate" }).success).toBe(false);
    expect(definition.args.safeParse({}).success).toBe(false);
    const args = definition.args.parse({ model: model.name });
    expect(args).toMatchObject({ repetitions: 1, overflow: "error" });
    const score = await definition.create(args)(sample("Q?", "A"), {});
    expect(score.status).toBe("scored");
  });
});
