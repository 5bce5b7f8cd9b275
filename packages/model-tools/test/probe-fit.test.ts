import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { loadModel, type VerifierModel } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateHead, fitProbe, PROBE_FIT_FILE, writeProbeModel } from "../src/index.js";
import { bananaSamples } from "./probe-data.js";

// Measured on these sets (seed 1 folds): held-out AUROC 0.93 (decoder) and 0.87 (encoder)
// on 100 samples; a fresh set scored by the written model: see the assertions' margins.
const HELD_OUT_AUROC = 0.75;

describe.each(["decoder", "encoder"] as const)("probe fit on the tiny %s", (kind) => {
  let model: VerifierModel;
  beforeAll(async () => {
    model = await loadModel(await tinyModel({ kind }), { threads: 1 });
  });
  afterAll(() => model.close());

  it("finds whether the answer holds a word, on samples it never saw", async () => {
    const fitted = await fitProbe(model, bananaSamples(100, 7), { seed: 1 });
    expect(fitted.report.samples).toBe(100);
    expect(fitted.report.heldOut.count).toBe(100);
    expect(fitted.report.heldOut.auroc).toBeGreaterThan(HELD_OUT_AUROC);
    expect(fitted.report.heldOut.accuracy).toBeGreaterThan(0.7);
    expect(fitted.probe).toHaveLength(model.hiddenSize);

    // The written folder is a working model: the normal scorer reads the new probe, and
    // on a fresh set (other answers) it still separates the labels.
    const out = join(tempRoot, `probe-${kind}`);
    const written = await writeProbeModel(model.dir, out, fitted);
    expect(written.graphFiles.map((f) => f.name)).toContain("model.onnx");
    const source = await stat(join(model.dir, "onnx", "model.onnx"));
    const copy = await stat(join(out, "onnx", "model.onnx"));
    expect(copy.size).toBe(source.size);
    const config = JSON.parse(await readFile(join(out, "assay.json"), "utf8"));
    expect(config.head).toMatchObject({ type: "probe", sigmoid: true, bias: fitted.bias });
    const report = JSON.parse(await readFile(join(out, PROBE_FIT_FILE), "utf8"));
    expect(report.lambda).toBe(fitted.report.lambda);

    const probed = await loadModel(out, { threads: 1 });
    try {
      const fresh = await evaluateHead(probed, bananaSamples(80, 99));
      expect(fresh.unscored).toEqual([]);
      expect(fresh.summary.auroc).toBeGreaterThan(HELD_OUT_AUROC);
    } finally {
      await probed.close();
    }
  });

  it("stays near chance when the labels carry nothing the text shows", async () => {
    // Same answers, labels by a coin unrelated to the text: held out, nothing to find.
    const samples = bananaSamples(100, 7).map((s, i) => ({
      ...s,
      label: (i * 7919) % 5 < 2 !== (i % 3 === 0),
    }));
    const fitted = await fitProbe(model, samples, { seed: 1 });
    expect(fitted.report.heldOut.auroc).toBeLessThan(HELD_OUT_AUROC);
  });

  it("gives the same probe for the same samples and seed", async () => {
    const a = await fitProbe(model, bananaSamples(40, 3), { seed: 5 });
    const b = await fitProbe(model, bananaSamples(40, 3), { seed: 5 });
    // Folds and solver are exact; the hidden states may differ in the last float bits when
    // the batcher groups rows differently (padding changes the kernels' summation order).
    const drift = Math.max(...a.probe.map((v, i) => Math.abs(v - (b.probe[i] ?? 0))));
    expect(drift).toBeLessThan(1e-4);
    expect(b.report.lambda).toBe(a.report.lambda);
  });

  it("refuses unlabelled samples and a single class", async () => {
    const unlabelled = bananaSamples(10, 2).map(({ label, ...rest }, i) =>
      i === 3 ? rest : { ...rest, label },
    );
    await expect(fitProbe(model, unlabelled)).rejects.toThrow(/s3 \(line 4\) has no label/);
    const same = bananaSamples(10, 2).map((s) => ({ ...s, label: true }));
    await expect(fitProbe(model, same)).rejects.toThrow(/each label/);
  });
});

describe("probe fit on a model with a distribution head", () => {
  it("reads last_hidden_state, and eval scores through the distribution head", async () => {
    const model = await loadModel(await tinyModel({ head: "distribution" }), { threads: 1 });
    try {
      const samples = bananaSamples(40, 5);
      const evaluation = await evaluateHead(model, samples);
      expect(evaluation.head).toBe("distribution");
      expect(evaluation.summary.count + evaluation.unscored.length).toBe(40);
      const fitted = await fitProbe(model, samples, { seed: 2 });
      expect(fitted.output).toBe("last_hidden_state");
      const out = join(tempRoot, "probe-from-distribution");
      await writeProbeModel(model.dir, out, fitted);
      const config = JSON.parse(await readFile(join(out, "assay.json"), "utf8"));
      // Fitted on the first template and criterion only: the others are dropped.
      expect(config.variants).toBeUndefined();
      expect(config.criteria).toHaveLength(1);
      const probed = await loadModel(out, { threads: 1 });
      await probed.close();
    } finally {
      await model.close();
    }
  });

  it("refuses a graph that returns only logits, naming the output it needs", async () => {
    const model = await loadModel(await tinyModel({ fullVocab: true }), { threads: 1 });
    try {
      await expect(fitProbe(model, bananaSamples(10, 5))).rejects.toThrow(
        /a probe reads a hidden-state output \(`last_hidden_state`.*returns only `logits`/,
      );
    } finally {
      await model.close();
    }
  });
});
