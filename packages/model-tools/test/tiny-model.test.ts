import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { sample, tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { createVerifierScorer, loadModel, type VerifierModel } from "@assay/verifier";
import { afterAll, describe, expect, it } from "vitest";
import { makeTinyModel } from "../src/index.js";

describe("makeTinyModel", () => {
  const loaded: VerifierModel[] = [];
  afterAll(async () => {
    for (const model of loaded) await model.close();
  });

  it("writes the same bytes for the same seed and different weights for another seed", async () => {
    const a = await makeTinyModel(join(tempRoot, "seed-a"), { seed: 3 });
    const b = await makeTinyModel(join(tempRoot, "seed-b"), { seed: 3 });
    const c = await makeTinyModel(join(tempRoot, "seed-c"), { seed: 4 });
    const bytes = (dir: string) => readFileSync(join(dir, "onnx", "model.onnx"));
    expect(bytes(a).equals(bytes(b))).toBe(true);
    expect(bytes(a).equals(bytes(c))).toBe(false);
    expect(statSync(join(a, "onnx", "model.onnx")).size).toBeLessThan(2_000_000);
    for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json", "assay.json"]) {
      expect(statSync(join(a, file)).isFile()).toBe(true);
    }
  });

  it.each(["decoder", "encoder"] as const)(
    "loads a tiny %s through the real loader and scores in [0, 1]",
    async (kind) => {
      const model = await loadModel(await tinyModel({ kind }), { threads: 1 });
      loaded.push(model);
      expect(model.hiddenSize).toBe(32);
      const outputs = model.session.outputNames;
      expect(outputs).toContain("last_hidden_state");
      if (kind === "decoder") expect(outputs).toContain("logits");
      const score = await createVerifierScorer(model, { model: model.name })(
        sample("What is 2 + 2?", "4"),
        {},
      );
      expect(score.status).toBe("scored");
      if (score.status === "scored") {
        expect(score.value).toBeGreaterThan(0);
        expect(score.value).toBeLessThan(1);
      }
    },
  );

  it("makes a full-vocabulary decoder shaped like optimum's text-generation export", async () => {
    const dir = await tinyModel({ fullVocab: true, externalData: true });
    const model = await loadModel(dir, { threads: 1 });
    loaded.push(model);
    expect(model.session.outputNames).toEqual(["logits"]);
    expect(model.session.outputMetadata[0]?.shape).toEqual(["batch", "sequence", 151_669]);
    const row = await model.forward([1, 2, 3], "logits");
    expect(row.output).toHaveLength(151_669);
    // Weights live in the external data file; the graph itself stays small.
    expect(statSync(join(dir, "onnx", "model.onnx")).size).toBeLessThan(64 * 1024);
    expect(statSync(join(dir, "onnx", "model.onnx_data")).size).toBeGreaterThan(32 * 151_669 * 4);
  });

  it("uses Qwen3's real tokenizer", async () => {
    const model = await loadModel(await tinyModel(), { threads: 1 });
    loaded.push(model);
    expect(model.tokenizer.encode("10", false)).toHaveLength(2);
    expect(model.tokenizer.encode("A", false)).toHaveLength(1);
    const config = JSON.parse(readFileSync(join(model.dir, "config.json"), "utf8")) as {
      vocab_size: number;
    };
    expect(config.vocab_size).toBeGreaterThan(150_000);
  });
});
