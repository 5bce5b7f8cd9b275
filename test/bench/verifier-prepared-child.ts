/**
 * One side of the prepared-graph bench, alone in its process so its peak RSS is its own:
 * loads a model folder, scores N samples of ~2,048 tokens through the real scorer, prints
 * one JSON line with VmRSS/VmHWM at each stage (start, loaded, samples built, warmed,
 * scored) for the memory breakdown. Usage: verifier-prepared-child.ts <json options>.
 */
import type { Sample } from "@assay/core";
import { fillerText } from "@assay/model-tools";
import { createVerifierScorer, loadModel } from "@assay/verifier";
import { memoryNow } from "./memory-stages.js";

interface ChildOptions {
  dir: string;
  samples: number;
  threads: number;
  maxBatchTokens: number;
  maxBatchRows: number;
  /** How long a partial batch waits for more rows (high: wait for full batches). */
  maxWaitMs: number;
  /** Session memory options: the verifier's defaults, or with onnxruntime's CPU arena off. */
  memory?: "default" | "no-arena";
}

const options = JSON.parse(process.argv[2] ?? "{}") as ChildOptions;
const atStart = memoryNow();
const model = await loadModel(options.dir, {
  threads: options.threads,
  ...(options.memory === "no-arena" && { memoryArena: false }),
  batch: {
    maxBatchTokens: options.maxBatchTokens,
    maxBatchRows: options.maxBatchRows,
    maxWaitMs: options.maxWaitMs,
  },
});
const loaded = memoryNow();
// One criterion: one prompt (one row) per sample.
const scorer = createVerifierScorer(model, { model: model.name, criteria: ["Correct"] });
const sampleOf = (question: string, i: number): Sample => ({
  id: String(i),
  taskId: String(i),
  candidateIndex: 0,
  question,
  answer: `Answer ${i}: option ${i % 5}.`,
  metadata: {},
  line: i + 1,
});
// Questions longer than the window: the fit keeps each prompt at ~2,048 tokens.
const samples = Array.from({ length: options.samples }, (_, i) =>
  sampleOf(fillerText(model.tokenizer, 2100, i), i),
);
const built = memoryNow();
// Warm the session directly: through the batcher a lone row would wait maxWaitMs for company.
await model.runner.run([[1, 2, 3]], model.config.head.output, model.scaleIds ?? []);
const warmed = memoryNow();
const warm = model.outputTotals();
// The shape of each batch scored below (rows × longest row), to quote the largest.
const shapes: [number, number][] = [];
model.batcher(model.config.head.output, model.scaleIds ?? []).onBatch = (record) => {
  shapes.push([record.lengths.length, Math.max(...record.lengths)]);
};
const statsBefore = model.stats();
const started = performance.now();
const scores = await Promise.all(samples.map((s) => scorer(s, {})));
const seconds = (performance.now() - started) / 1000;
const scored = memoryNow();
const totals = model.outputTotals();
const stats = model.stats();
await model.close();
process.stdout.write(
  `${JSON.stringify({
    samplesPerSecond: options.samples / seconds,
    seconds,
    outputBytesPerRow: (totals.bytes - warm.bytes) / (totals.rows - warm.rows),
    batches: stats.batches - statsBefore.batches,
    shapes,
    tokensPerRow: (stats.realTokens - statsBefore.realTokens) / (stats.rows - statsBefore.rows),
    stages: { start: atStart, loaded, built, warmed, scored },
    values: scores.map((s) => (s.status === "scored" ? s.value : null)),
  })}\n`,
);
