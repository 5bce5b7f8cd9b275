import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  largestDelta,
  mixedSamples,
  preparedPair,
  scoreValues,
} from "@assay/test-support/prepared-models";
import { loadModel, PREPARED, type VerifierModel } from "@assay/verifier";
import onnxProto from "onnx-proto";
import { afterAll, describe, expect, it } from "vitest";
import type { TinyModelOptions } from "../src/index.js";

const { onnx } = onnxProto;
/** Short enough that a batch of full-vocabulary logits stays a few hundred MB. */
const LENGTHS = [3, 160, 30, 90];
const batch = { maxBatchTokens: 4096, maxWaitMs: 30 };

const models: VerifierModel[] = [];
async function load(dir: string): Promise<VerifierModel> {
  const model = await loadModel(dir, { threads: 2, batch });
  models.push(model);
  return model;
}
afterAll(async () => {
  for (const model of models) await model.close();
});

const cases: [string, TinyModelOptions, number][] = [
  ["full-vocabulary decoder, distribution head, left padding", { fullVocab: true }, 20],
  [
    "full-vocabulary decoder, distribution head, right padding",
    { fullVocab: true, paddingSide: "right" },
    20,
  ],
  ["decoder, probe head, left padding", { head: "probe" }, 32],
  ["encoder, probe head, right padding", { kind: "encoder" }, 32],
  ["encoder, probe head, left padding", { kind: "encoder", paddingSide: "left" }, 32],
];

describe("a prepared graph", () => {
  it.each(cases)(
    "scores like its original within 1e-5, batched with padding (%s)",
    async (_, options, width) => {
      const pair = await preparedPair(options);
      const original = await load(pair.original);
      const prepared = await load(pair.prepared);
      expect(prepared.prepared).toBe(true);
      expect(prepared.paddingSide).toBe(original.paddingSide);
      const samples = mixedSamples(original, LENGTHS);

      const before = prepared.stats();
      const batched = await scoreValues(prepared, samples, true);
      const after = prepared.stats();
      expect(after.batches - before.batches).toBeLessThan(after.rows - before.rows);
      expect(after.computedTokens - before.computedTokens).toBeGreaterThan(
        after.realTokens - before.realTokens,
      );
      const single = await scoreValues(prepared, samples, false);
      const reference = await scoreValues(original, samples, true);
      expect(largestDelta(batched, reference)).toBeLessThan(1e-5);
      expect(largestDelta(single, reference)).toBeLessThan(1e-5);
      expect(new Set(batched.map((row) => row.at(-1))).size).toBe(samples.length);

      // The graph returns [batch, G] / [batch, hidden]: one small vector per row.
      const output = prepared.config.head.output;
      const meta = prepared.session.outputMetadata.find((m) => m.name === output);
      expect(meta?.shape).toHaveLength(2);
      const totals = prepared.outputTotals();
      expect(totals.bytes / totals.rows).toBe(width * 4);
      const row = await prepared.forward([1, 2, 3], output, prepared.scaleIds ?? []);
      expect(row.output).toHaveLength(width);
    },
  );

  it("drops the LM head of a decoder prepared for a probe head only", async () => {
    const pair = await preparedPair({ head: "probe" });
    const graph = (dir: string) =>
      onnx.ModelProto.decode(readFileSync(join(dir, "onnx", "model.onnx"))).graph;
    const names = (dir: string) => (graph(dir)?.initializer ?? []).map((t) => t.name);
    expect(names(pair.original)).toContain("lm_head");
    expect(names(pair.prepared)).not.toContain("lm_head");
    expect((graph(pair.prepared)?.output ?? []).map((o) => o.name)).toEqual([PREPARED.hidden]);
    expect((graph(pair.prepared)?.node ?? []).some((n) => n.opType === "LogSoftmax")).toBe(false);
  });

  it("returns at most 1/1000 of the original's output bytes per row", async () => {
    const pair = await preparedPair({ fullVocab: true });
    const original = await load(pair.original);
    const prepared = await load(pair.prepared);
    const samples = mixedSamples(original, [200]);
    await scoreValues(original, samples, true);
    await scoreValues(prepared, samples, true);
    const perRow = (m: VerifierModel) => m.outputTotals().bytes / m.outputTotals().rows;
    // ~260 positions × 151,669 logits × 4 bytes against 20 log-probabilities × 4 bytes.
    expect(perRow(original)).toBeGreaterThan(150_000_000);
    expect(perRow(prepared)).toBe(80);
  });

  it("keeps external weights by reference and copies inline weights byte for byte", async () => {
    const external = await preparedPair({ fullVocab: true, externalData: true });
    const data = (dir: string) => join(dir, "onnx", "model.onnx_data");
    const graph = (dir: string) => join(dir, "onnx", "model.onnx");
    expect(statSync(data(external.prepared)).ino).toBe(statSync(data(external.original)).ino);
    expect(statSync(data(external.original)).size).toBeGreaterThan(19_000_000);
    expect(statSync(graph(external.prepared)).size).toBeLessThan(64 * 1024);

    const inline = await preparedPair({ fullVocab: true });
    const weights = (dir: string) => {
      const initializers = onnx.ModelProto.decode(readFileSync(graph(dir))).graph?.initializer;
      return new Map((initializers ?? []).map((t) => [t.name ?? "", Buffer.from(t.rawData ?? [])]));
    };
    const before = weights(inline.original);
    const after = weights(inline.prepared);
    for (const [name, bytes] of before) expect(after.get(name)?.equals(bytes), name).toBe(true);
    expect([...after.keys()].filter((name) => !before.has(name))).toEqual(["assay_prepare/axes_1"]);

    const a = await load(external.original);
    const b = await load(external.prepared);
    const samples = mixedSamples(a, [20, 70]);
    expect(
      largestDelta(await scoreValues(a, samples, true), await scoreValues(b, samples, true)),
    ).toBeLessThan(1e-5);
  });

  it("serves a probe head from a logits-only export: the LM head's input at the position", async () => {
    const pair = await preparedPair({ fullVocab: true }, { heads: ["distribution", "probe"] });
    const model = await load(pair.prepared);
    expect(model.session.inputNames).toEqual(
      expect.arrayContaining([PREPARED.position, PREPARED.tokenIds]),
    );
    expect(model.session.outputNames).toEqual([PREPARED.logprobs, PREPARED.hidden]);
    const ids = [5, 6, 7, 8];
    const hidden = (await model.forward(ids, PREPARED.hidden)).output;
    expect(hidden).toHaveLength(32);
    const scale = model.scaleIds ?? [];
    const logProbs = (await model.forward(ids, PREPARED.logprobs, scale)).output;
    // The LM head applied to score_hidden by hand gives the graph's score_logprobs.
    const original = onnx.ModelProto.decode(
      readFileSync(join(pair.original, "onnx", "model.onnx")),
    );
    const head = (original.graph?.initializer ?? []).find((t) => t.name === "lm_head");
    const weight = new Float32Array(Uint8Array.from(head?.rawData ?? []).buffer);
    const vocab = weight.length / 32;
    const logits = Array.from({ length: vocab }, (_, v) =>
      hidden.reduce((sum, h, k) => sum + h * (weight[k * vocab + v] ?? 0), 0),
    );
    const max = logits.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
    const logSum = max + Math.log(logits.reduce((sum, l) => sum + Math.exp(l - max), 0));
    scale.forEach((id, g) => {
      expect(Math.abs((logits[id] ?? 0) - logSum - (logProbs[g] ?? 0))).toBeLessThan(1e-4);
    });
  });
});
