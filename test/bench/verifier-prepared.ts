/**
 * Prepared graph vs its export, on the full-vocabulary tiny decoder (logits over Qwen3's
 * 151,669 ids at every position, like optimum's text-generation export). Each side runs in
 * its own child process (verifier-prepared-child.ts) under /usr/bin/time, so each peak RSS
 * is its own; the same samples, ~2,048 tokens each, one prompt per sample.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTinyModel, prepareModel } from "@assay/model-tools";
import { fmt, measureProcess } from "./bench-util.js";
import type { MemoryNow } from "./memory-stages.js";

const CHILD = fileURLToPath(new URL("./verifier-prepared-child.ts", import.meta.url));
const VOCAB = 151_669;
const WINDOW = 2048;
/** The tiny decoder's default attention heads. */
const HEADS = 2;

interface ChildResult {
  samplesPerSecond: number;
  outputBytesPerRow: number;
  batches: number;
  /** Rows and longest row of each batch. */
  shapes: [number, number][];
  tokensPerRow: number;
  values: (number | null)[];
  peakRssMb: number;
  stages: Record<"start" | "loaded" | "built" | "warmed" | "scored", MemoryNow>;
}

/** Batches of 16 rows in the batched runs: several, so memory kept between batches shows. */
const BATCHES = 3;
const TARGET_MB = 1000;

/** The batched runs: the prepared graph with unfused attention (the baseline) and fused. */
interface Batched {
  /** Arena on (the verifier's default), one result per repeat, unfused and fused alternating. */
  unfused: ChildResult[];
  fused: ChildResult[];
  /** Arena off, once each. */
  unfusedNoArena: ChildResult;
  fusedNoArena: ChildResult;
}

export async function preparedBench(options: {
  samples: number;
  threads: number;
  /** Runs of each arena-on batched side; medians are quoted. Default 1. */
  repeats?: number;
}): Promise<[string, string, string][]> {
  const dir = mkdtempSync(join(tmpdir(), "assay-bench-prepared-"));
  try {
    const original = await makeTinyModel(join(dir, "export"), { fullVocab: true, seed: 3 });
    const prepared = (await prepareModel(original, join(dir, "prepared"))).dir;
    // The same weights with attention fused as onnxruntime's optimizers write it.
    const fusedExport = await makeTinyModel(join(dir, "fused-export"), {
      fullVocab: true,
      seed: 3,
      fusedAttention: true,
    });
    const fused = (await prepareModel(fusedExport, join(dir, "fused-prepared"))).dir;
    const oneRow = { maxBatchTokens: WINDOW, maxBatchRows: 1, maxWaitMs: 2 };
    const sixteen = { maxBatchTokens: 16 * WINDOW, maxBatchRows: 16, maxWaitMs: 120_000 };
    const run = (model: string, batch: typeof oneRow, samples = options.samples, extra = {}) =>
      child({ dir: model, samples, threads: options.threads, ...batch, ...extra });
    const a = await run(original, oneRow);
    const b = await run(prepared, oneRow);
    let batched: Batched | null = null;
    if (options.samples >= 16) {
      const unfusedRuns: ChildResult[] = [];
      const fusedRuns: ChildResult[] = [];
      for (let i = 0; i < Math.max(1, options.repeats ?? 1); i++) {
        unfusedRuns.push(await run(prepared, sixteen, 16 * BATCHES));
        fusedRuns.push(await run(fused, sixteen, 16 * BATCHES));
      }
      const noArena = { memory: "no-arena" };
      batched = {
        unfused: unfusedRuns,
        fused: fusedRuns,
        unfusedNoArena: await run(prepared, sixteen, 16 * BATCHES, noArena),
        fusedNoArena: await run(fused, sixteen, 16 * BATCHES, noArena),
      };
    }
    return rows(options, a, b, batched);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function child(options: Record<string, unknown>): Promise<ChildResult> {
  const measured = await measureProcess(process.execPath, [
    "--conditions=@assay/source",
    "--import",
    "tsx",
    CHILD,
    JSON.stringify(options),
  ]);
  if (measured.exitCode !== 0) {
    throw new Error(`bench child failed (${measured.exitCode}): ${measured.stderr.slice(-2000)}`);
  }
  const line = measured.stdout.trim().split("\n").at(-1) ?? "{}";
  return { ...(JSON.parse(line) as ChildResult), peakRssMb: measured.peakRssMb };
}

function rows(
  options: { samples: number; threads: number },
  original: ChildResult,
  prepared: ChildResult,
  batched: Batched | null,
): [string, string, string][] {
  const delta = Math.max(
    ...original.values.map((v, i) => Math.abs((v ?? Number.NaN) - (prepared.values[i] ?? 0))),
  );
  const logitsAt16 = 16 * WINDOW * VOCAB * 4;
  const attentionAt16 = 16 * HEADS * WINDOW * WINDOW * 4;
  return [
    [
      "prepared: model",
      "tiny decoder 2×32, full vocabulary",
      `${fmt(VOCAB)}-id logits at every position vs score_logprobs [batch, 20]; cpu, ${options.threads} threads`,
    ],
    [
      "prepared: samples",
      String(options.samples),
      `~${fmt(original.tokensPerRow)} tokens each, one prompt each; the same samples on both sides`,
    ],
    [
      "output per row",
      `${bytes(original.outputBytesPerRow)} → ${bytes(prepared.outputBytesPerRow)}`,
      `prepared ÷ original = 1/${fmt(original.outputBytesPerRow / prepared.outputBytesPerRow)}; target ≤ 1/1,000`,
    ],
    [
      "samples/s, 1 row per batch",
      `${original.samplesPerSecond.toFixed(3)} → ${prepared.samplesPerSecond.toFixed(3)}`,
      `prepared ÷ original = ${(prepared.samplesPerSecond / original.samplesPerSecond).toFixed(1)}×; target ≥ 3×`,
    ],
    [
      "peak RSS, 1 row per batch",
      `${fmt(original.peakRssMb)} MB → ${fmt(prepared.peakRssMb)} MB`,
      "whole process: Node, two tokenizer copies (main + fit thread), onnxruntime, activations",
    ],
    ...(batched === null
      ? [
          ["peak RSS, batch 16 × 2,048", "not run", "needs --samples 16 or more"] as [
            string,
            string,
            string,
          ],
        ]
      : batchedRows(batched, attentionAt16, logitsAt16)),
    [
      "max |Δ| original vs prepared",
      delta.toExponential(1),
      "final values of the same samples; limit 1e-5",
    ],
  ];
}

/** The largest batch of any of `runs` (most rows × longest row), and how many batches ran. */
const largest = (runs: ChildResult[]): string => {
  const shapes = runs.flatMap((r) => r.shapes);
  const [rows, longest] = shapes.reduce(
    (best, shape) => (shape[0] * shape[1] > best[0] * best[1] ? shape : best),
    [0, 0],
  );
  const counts = [...new Set(runs.map((r) => r.batches))].join(" or ");
  return `${rows} × ${fmt(longest)} (${counts} batches per run)`;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
};

/** The run whose peak RSS is the median: its stages stand for the side. */
const medianRun = (runs: ChildResult[]): ChildResult => {
  const sorted = [...runs].sort((x, y) => x.peakRssMb - y.peakRssMb);
  return sorted[Math.floor((sorted.length - 1) / 2)] as ChildResult;
};

/**
 * Peak RSS and speed at 16 × 2,048, unfused attention (baseline) → fused, and where the
 * memory goes, from the stages the child sampled.
 */
function batchedRows(
  batched: Batched,
  attentionAt16: number,
  logitsAt16: number,
): [string, string, string][] {
  const { unfused, fused, unfusedNoArena, fusedNoArena } = batched;
  const mb = (value: number) => `${fmt(Math.round(value))} MB`;
  const rate = (value: number) => value.toFixed(3);
  const peakU = median(unfused.map((r) => r.peakRssMb));
  const peakF = median(fused.map((r) => r.peakRssMb));
  const speedU = median(unfused.map((r) => r.samplesPerSecond));
  const speedF = median(fused.map((r) => r.samplesPerSecond));
  const s = medianRun(unfused).stages;
  const f = medianRun(fused).stages;
  // Unfused, scores and their softmax are both live at once: two [16, heads, 2,048, 2,048] tensors.
  const attentionMb = (2 * attentionAt16) / 2 ** 20;
  const met = (peak: number) => (peak < TARGET_MB ? "met" : "NOT met");
  const both = (g: (stages: ChildResult["stages"]) => number) => `${mb(g(s))} → ${mb(g(f))}`;
  const runs = `median of ${unfused.length} run${unfused.length === 1 ? "" : "s"} each`;
  const delta = Math.max(
    ...[...unfused, ...fused, unfusedNoArena, fusedNoArena].flatMap((r) =>
      r.values.map((v, i) => Math.abs((v ?? Number.NaN) - (unfused[0]?.values[i] ?? 0))),
    ),
  );
  return [
    [
      "peak RSS, batch 16 × 2,048",
      `${mb(peakU)} → ${mb(peakF)}`,
      `attention unfused (MatMul → Softmax → MatMul, baseline) → fused (GroupQueryAttention); target < ${fmt(TARGET_MB)} MB: ${met(peakU)} → ${met(peakF)}; ${runs}; largest batch ${largest(unfused)} → ${largest(fused)}; the original is not run: its logits alone would be ${bytes(logitsAt16)} per batch`,
    ],
    [
      "samples/s, batch 16 × 2,048",
      `${rate(speedU)} → ${rate(speedF)}`,
      `fused ÷ unfused = ${(speedF / speedU).toFixed(2)}; ${runs} (noisy shared host)`,
    ],
    [
      "peak RSS, arena off",
      `${mb(unfusedNoArena.peakRssMb)} → ${mb(fusedNoArena.peakRssMb)}`,
      `onnxruntime's CPU memory arena off (loadModel memoryArena: false), one run each; target: ${met(unfusedNoArena.peakRssMb)} → ${met(fusedNoArena.peakRssMb)}`,
    ],
    [
      "samples/s, arena off",
      `${rate(unfusedNoArena.samplesPerSecond)} → ${rate(fusedNoArena.samplesPerSecond)}`,
      `arena off ÷ on: unfused ${(unfusedNoArena.samplesPerSecond / speedU).toFixed(2)}, fused ${(fusedNoArena.samplesPerSecond / speedF).toFixed(2)}; one run each`,
    ],
    [
      "  1 process before load",
      both((x) => x.start.rssMb),
      "unfused → fused, arena on: Node, tsx, the verifier's modules",
    ],
    [
      "  2 model load",
      both((x) => x.loaded.rssMb - x.start.rssMb),
      "onnxruntime + 20 MB of weights in the inference thread, the main-thread tokenizer, the fit thread and its tokenizer",
    ],
    [
      "  3 samples + warm-up",
      both((x) => x.warmed.rssMb - x.loaded.rssMb),
      `${fmt(16 * BATCHES)} questions of ~2,100 tokens, one 3-token pass`,
    ],
    [
      "  4 batch peak above 1–3",
      both((x) => x.scored.peakMb - x.warmed.rssMb),
      `graph activations; unfused, ${mb(attentionMb)} of it is two live [16, ${HEADS}, 2,048, 2,048] float32 attention tensors (scores, softmax; ${bytes(attentionAt16)} each); fused attention holds none`,
    ],
    [
      "  after the batches",
      both((x) => x.scored.rssMb),
      "still resident once the last batch is done (the arena keeps its peak)",
    ],
    [
      "max |Δ| unfused vs fused",
      delta.toExponential(1),
      "final values of the same samples, every batched run against the first unfused one; limit 1e-5",
    ],
  ];
}

function bytes(value: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1000 && unit < units.length - 1) {
    scaled /= 1000;
    unit += 1;
  }
  return `${scaled.toFixed(unit === 0 ? 0 : 2)} ${units[unit]}`;
}
