import { monitorEventLoopDelay } from "node:perf_hooks";
import { fillerText } from "@assay/model-tools";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVerifierScorer, loadModel, type VerifierModel } from "../src/index.js";

describe("event loop during inference", () => {
  let model: VerifierModel;
  beforeAll(async () => {
    // 16 rows × 2,048 tokens in one forward pass: the longest batch the defaults allow.
    model = await loadModel(await tinyModel({ layers: 4 }), {
      threads: 2,
      batch: { maxBatchTokens: 32_768, maxWaitMs: 50 },
    });
  });
  afterAll(() => model.close());

  it("keeps the loop's p99 delay under 200 ms while long inputs are fitted and a long batch runs", async () => {
    const scorer = createVerifierScorer(model, { model: model.name });
    const question = fillerText(model.tokenizer, 8000);
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const started = performance.now();
    const scores = await Promise.all(
      Array.from({ length: 16 }, (_, i) => scorer(sample(question, `answer ${i}`), {})),
    );
    const elapsed = performance.now() - started;
    histogram.disable();
    expect(scores.every((s) => s.status === "scored")).toBe(true);
    const stats = model.stats();
    expect(stats.rows).toBe(16);
    expect(stats.batches).toBeLessThan(16);
    const p99 = histogram.percentile(99) / 1e6;
    const max = histogram.max / 1e6;
    console.info(
      `event loop over ${elapsed.toFixed(0)} ms, ${stats.batches} batch(es): p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    expect(p99).toBeLessThan(200);
  });
});
