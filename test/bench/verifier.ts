/**
 * Verifier benchmark (not a timed test):
 * `npm run bench:verifier [-- --samples N --part pipeline|prepared|reuse|all --prepared-samples M
 *  --prepared-repeats K --reuse-samples R]`.
 *
 * Part `pipeline`, over a tiny decoder sized for the bench (scores mean nothing):
 * - pipeline samples/s ÷ a raw onnxruntime-node loop over the same pre-tokenized inputs,
 *   same batch composition, same threads (target ≥ 0.85);
 * - padding efficiency (real ÷ computed tokens): the length-sorted batcher vs arrival-order
 *   batching (target ≥ 0.9 for the batcher);
 * - share of time spent in tokenization + fit.
 *
 * Part `prepared` (verifier-prepared.ts): the full-vocabulary tiny decoder as exported vs
 * prepared by `assay model prepare`, each in its own process: output bytes per row (target
 * ≤ 1/1,000), samples/s (target ≥ 3×), peak RSS; then the prepared graph at batch 16 × 2,048
 * tokens, three batches, with attention unfused (the baseline) and fused (GroupQueryAttention,
 * the same weights), each K times alternating (medians), and once each with the CPU arena
 * off: peak RSS against the 1 GB target, samples/s, and where the memory goes (process,
 * load, batch).
 *
 * Part `reuse` (verifier-reuse.ts): the tiny with-past decoder without prefix reuse (the
 * baseline), with it, and prepared with it, C=3 × K=2 over 8-step trajectories: computed
 * tokens (target ≥ 3× fewer) and wall time (target ≥ 2× less) against the baseline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Sample } from "@assay/core";
import { fillerText, makeTinyModel } from "@assay/model-tools";
import {
  createVerifierScorer,
  fitPrompt,
  loadModel,
  paddingEfficiency,
  planBatches,
  resolvePrompt,
} from "@assay/verifier";
import { padRows, sessionOptionsFor } from "@assay/verifier/tooling";
import * as ort from "onnxruntime-node";
import { preparedBench } from "./verifier-prepared.js";
import { reuseBench } from "./verifier-reuse.js";

const { values: flags } = parseArgs({
  options: {
    samples: { type: "string", default: "2000" },
    threads: { type: "string", default: "2" },
    layers: { type: "string", default: "4" },
    hidden: { type: "string", default: "256" },
    "batch-tokens": { type: "string", default: "16384" },
    seed: { type: "string", default: "7" },
    part: { type: "string", default: "all" },
    "prepared-samples": { type: "string", default: "16" },
    "prepared-repeats": { type: "string", default: "1" },
    "reuse-samples": { type: "string", default: "16" },
  },
});
const N = Number(flags.samples);
const threads = Number(flags.threads);
const batch = { maxBatchTokens: Number(flags["batch-tokens"]), maxBatchRows: 64, maxWaitMs: 2 };

const part = flags.part;
if (!["all", "pipeline", "prepared", "reuse"].includes(part)) {
  throw new RangeError(`Expected --part to be all, pipeline, prepared or reuse, got "${part}"`);
}
const table: [string, string, string][] = [];
if (part === "all" || part === "pipeline") table.push(...(await pipelineBench()));
if (part === "all" || part === "prepared") {
  table.push(
    ...(await preparedBench({
      samples: Number(flags["prepared-samples"]),
      threads,
      repeats: Number(flags["prepared-repeats"]),
    })),
  );
}
if (part === "all" || part === "reuse") {
  table.push(
    ...(await reuseBench({
      samples: Number(flags["reuse-samples"]),
      threads,
      layers: Number(flags.layers),
      hidden: Number(flags.hidden),
      batch,
    })),
  );
}
printTable(table);

async function pipelineBench(): Promise<[string, string, string][]> {
  const dir = mkdtempSync(join(tmpdir(), "assay-bench-verifier-"));
  try {
    await makeTinyModel(dir, {
      layers: Number(flags.layers),
      hidden: Number(flags.hidden),
      heads: 4,
      seed: 3,
    });
    const model = await loadModel(dir, { threads, batch });
    const output = model.config.head.output;

    // Mixed lengths 64..2,048 tokens (uniform), in a shuffled arrival order.
    let state = Number(flags.seed);
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const overhead = 40; // template tokens around the question
    const samples: Sample[] = Array.from({ length: N }, (_, i) => {
      const length = 64 + Math.floor(random() * (2048 - 64));
      const question = fillerText(model.tokenizer, Math.max(1, length - overhead), i);
      return {
        id: String(i),
        taskId: String(i),
        candidateIndex: 0,
        question,
        answer: `Answer ${i}: option ${i % 5}.`,
        metadata: {},
        line: i + 1,
      };
    });

    // 1. Tokenization + fit alone (main thread, same inputs): its cost in isolation.
    let started = performance.now();
    const fitted = samples.map((s) => {
      const prompt = resolvePrompt(model.config.template, s, "");
      if (!prompt.ok) throw new Error(prompt.message);
      const fit = fitPrompt(model.tokenizer, prompt.pieces, {
        maxLength: model.config.max_length,
        margin: model.config.margin,
        policy: "error",
      });
      if (!fit.ok) throw new Error(fit.message);
      return fit.ids;
    });
    const fitMs = performance.now() - started;
    const lengths = fitted.map((ids) => ids.length);

    // 2. The pipeline: scorer → fit thread → dynamic batcher → inference thread → head.
    const batches: number[][][] = [];
    const batchMs: number[] = [];
    model.batcher(output).onBatch = (record, rows) => {
      batches.push(rows.map((r) => [...r]));
      batchMs.push(record.ms);
    };
    const scorer = createVerifierScorer(model, { model: model.name });
    await scorer(samples[0] as Sample, {}); // warm-up, excluded below
    batches.length = 0;
    batchMs.length = 0;
    const warmStats = model.stats();
    started = performance.now();
    const scores = await Promise.all(samples.map((s) => scorer(s, {})));
    const pipelineMs = performance.now() - started;
    const stats = model.stats();
    const unscoredCount = scores.filter((s) => s.status !== "scored").length;
    const real = stats.realTokens - warmStats.realTokens;
    const computed = stats.computedTokens - warmStats.computedTokens;
    const io = model.runner.io;
    const paddingSide = model.paddingSide;
    const padId = model.tokenizer.padId;
    await model.close();

    // 3. Raw onnxruntime-node loop: same batches, same threads, pre-tokenized.
    const session = await ort.InferenceSession.create(
      join(dir, "onnx", "model.onnx"),
      sessionOptionsFor({ threads }),
    );
    await session.run(toTensors(padRows([fitted[0] ?? []], io, paddingSide, padId)), [output]); // warm-up
    const rawBatchMs: number[] = [];
    started = performance.now();
    for (const rows of batches) {
      const t = performance.now();
      await session.run(toTensors(padRows(rows, io, paddingSide, padId)), [output]);
      rawBatchMs.push(performance.now() - t);
    }
    const rawMs = performance.now() - started;
    await session.release();

    const arrival = paddingEfficiency(lengths, planBatches(lengths, batch, "arrival"));
    const sortedAll = paddingEfficiency(lengths, planBatches(lengths, batch, "sorted"));
    const rows: [string, string, string][] = [
      [
        "samples",
        String(N),
        `${unscoredCount} unscored; lengths ${Math.min(...lengths)}..${Math.max(...lengths)} tokens, median ${median(lengths)}`,
      ],
      [
        "model",
        `tiny decoder ${flags.layers}×${flags.hidden}`,
        `cpu, ${threads} intra-op threads, batch ≤ ${batch.maxBatchTokens} tokens`,
      ],
      [
        "pipeline",
        `${((N / pipelineMs) * 1000).toFixed(2)} samples/s`,
        `${(pipelineMs / 1000).toFixed(1)} s, ${batches.length} batches, median batch ${median(batchMs).toFixed(0)} ms`,
      ],
      [
        "raw onnxruntime loop",
        `${((N / rawMs) * 1000).toFixed(2)} samples/s`,
        `${(rawMs / 1000).toFixed(1)} s, same ${batches.length} batches, median batch ${median(rawBatchMs).toFixed(0)} ms`,
      ],
      ["pipeline ÷ raw", (rawMs / pipelineMs).toFixed(3), "target ≥ 0.85"],
      [
        "pipeline time in forward passes",
        `${((sum(batchMs) / pipelineMs) * 100).toFixed(1)} %`,
        "Σ batch ms ÷ wall: the rest is fit, batching and thread hops",
      ],
      [
        "padding efficiency, batcher",
        real / computed > 0 ? (real / computed).toFixed(3) : "n/a",
        "real ÷ computed tokens; target ≥ 0.9",
      ],
      [
        "padding efficiency, arrival order",
        arrival.toFixed(3),
        `same token budget (all-at-once sorted plan: ${sortedAll.toFixed(3)})`,
      ],
      [
        "tokenization + fit",
        `${((fitMs / pipelineMs) * 100).toFixed(1)} % of pipeline time`,
        `${(fitMs / 1000).toFixed(1)} s alone on one thread, ${(fitMs / N).toFixed(1)} ms/sample; overlapped with inference in the fit thread`,
      ],
    ];
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function toTensors(feeds: ReturnType<typeof padRows>): Record<string, ort.Tensor> {
  return Object.fromEntries(
    Object.entries(feeds).map(([name, f]) => [name, new ort.Tensor("int64", f.data, f.dims)]),
  );
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function printTable(rows: readonly (readonly string[])[]): void {
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  console.log("\nverifier bench");
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join("  "));
}
