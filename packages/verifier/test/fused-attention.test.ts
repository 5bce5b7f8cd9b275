import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTinyModel, type TinyModelOptions } from "@assay/model-tools";
import { preparedPair } from "@assay/test-support/prepared-models";
import { sample, tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  loadModel,
  type VerifierDetail,
  type VerifierModel,
} from "../src/index.js";

/**
 * The tiny decoder with attention fused (one GroupQueryAttention per layer, right-padded)
 * against the same weights unfused (MatMul → Softmax → MatMul with additive masks), left-
 * and right-padded: every output vector agrees within 1e-5, whatever the batch's lengths.
 */
const QWEN3_IDS = 151_669;

const rowsOf = fc.array(
  fc.array(fc.integer({ min: 0, max: QWEN3_IDS - 1 }), { minLength: 1, maxLength: 48 }),
  { minLength: 1, maxLength: 6 },
);

const maxDelta = (a: Float32Array[], b: Float32Array[]) =>
  Math.max(...a.flatMap((row, r) => Array.from(row, (v, i) => Math.abs(v - (b[r]?.[i] ?? NaN)))));

async function outputs(model: VerifierModel, rows: number[][]): Promise<Float32Array[]> {
  return model.runner.run(rows, model.config.head.output, model.scaleIds ?? []);
}

describe.each<[string, TinyModelOptions, boolean]>([
  ["probe head", { head: "probe", seed: 5 }, false],
  ["distribution head", { head: "distribution", seed: 5 }, false],
  ["full vocabulary, prepared", { fullVocab: true, seed: 5 }, true],
])("fused vs unfused attention (%s)", (_, options, prepare) => {
  const models: Record<"left" | "right" | "fused", VerifierModel | null> = {
    left: null,
    right: null,
    fused: null,
  };
  const dirOf = async (extra: TinyModelOptions) =>
    prepare
      ? (await preparedPair({ ...options, ...extra })).prepared
      : tinyModel({ ...options, ...extra });

  beforeAll(async () => {
    models.left = await loadModel(await dirOf({ paddingSide: "left" }), { threads: 1 });
    models.right = await loadModel(await dirOf({ paddingSide: "right" }), { threads: 1 });
    models.fused = await loadModel(await dirOf({ fusedAttention: true }), { threads: 1 });
  });
  afterAll(async () => {
    for (const model of Object.values(models)) await model?.close();
  });

  it("the fused model is right-padded by default", () => {
    expect(models.fused?.paddingSide).toBe("right");
  });

  it("agree within 1e-5 for every batch of rows", async () => {
    const { left, right, fused } = models;
    if (left === null || right === null || fused === null) throw new Error("models not loaded");
    await fc.assert(
      fc.asyncProperty(rowsOf, async (rows) => {
        const want = await outputs(left, rows);
        expect(maxDelta(await outputs(right, rows), want)).toBeLessThan(1e-5);
        expect(maxDelta(await outputs(fused, rows), want)).toBeLessThan(1e-5);
      }),
      { numRuns: 25 },
    );
  });
});

describe("makeTinyModel with fused attention", () => {
  it.each<[string, TinyModelOptions, RegExp]>([
    ["left padding", { fusedAttention: true, paddingSide: "left" }, /right-padded/],
    ["an encoder", { fusedAttention: true, kind: "encoder" }, /decoder/],
  ])("refuses %s", async (_, options, message) => {
    await expect(makeTinyModel(`${tempRoot}/refused`, options)).rejects.toThrow(message);
  });
});

describe("loading a graph with GroupQueryAttention", () => {
  it.each(["tokenizer_config.json", "assay.json"])(
    "refuses left padding set in %s, naming the fix",
    async (file) => {
      const dir = await makeTinyModel(join(tempRoot, `fused-left-${file}`), {
        fusedAttention: true,
      });
      const path = join(dir, file);
      const json = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
      await writeFile(path, JSON.stringify({ ...json, padding_side: "left" }));
      await expect(loadModel(dir, { threads: 1 })).rejects.toThrow(
        /GroupQueryAttention.*must be right-padded.*"padding_side": "right"/,
      );
    },
  );
});

describe("fused attention with past key values", () => {
  const loaded: VerifierModel[] = [];
  afterAll(async () => {
    for (const model of loaded) await model.close();
  });

  it("runs prompts whole (a padded past cannot be fed to it) and scores like the unfused reuse", async () => {
    const [unfused, fused] = await Promise.all([
      loadModel(await tinyModel({ head: "distribution", withPast: true, seed: 5 }), { threads: 1 }),
      loadModel(
        await tinyModel({ head: "distribution", withPast: true, seed: 5, fusedAttention: true }),
        { threads: 1 },
      ),
    ]);
    loaded.push(unfused, fused);
    expect(unfused.reusesPrefixes).toBe(true);
    expect(fused.reusesPrefixes).toBe(false);
    const criteria = ["The answer is correct.", "The steps follow.", "It is brief."];
    const input = sample("Which compound is released?", "Allomones. So the answer is C.");
    const [a, b] = await Promise.all(
      [unfused, fused].map((model) =>
        createVerifierScorer(model, { model: model.name, criteria })(input, {}),
      ),
    );
    if (a?.status !== "scored" || b?.status !== "scored") throw new Error("not scored");
    const values = (detail: unknown) =>
      (detail as VerifierDetail).criteria.flatMap((c) => c.variants.map((v) => v.value ?? NaN));
    expect(values(b.detail)).toHaveLength(criteria.length);
    expect(
      maxDelta([Float32Array.from(values(a.detail))], [Float32Array.from(values(b.detail))]),
    ).toBeLessThan(1e-5);
    expect(Math.abs(a.value - b.value)).toBeLessThan(1e-5);
    expect(b.calls?.usage?.cachedInputTokens).toBe(0);
  });
});
