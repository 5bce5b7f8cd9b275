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
import { makeTinyModel, prepareModel } from "@assay/verifier";
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
  tokensPerRow: number;
  values: (number | null)[];
  peakRssMb: number;
  stages: Record<"start" | "loaded" | "built" | "warmed" | "scored", MemoryNow>;
}

/** Batches of 16 rows in the batched runs: several, so memory kept between batches shows. */
const BATCHES = 3;
const TARGET_MB = 1000;

export async function preparedBench(options: {
  samples: number;
  threads: number;
}): Promise<[string, string, string][]> {
  const dir = mkdtempSync(join(tmpdir(), "assay-bench-prepared-"));
  try {
    const original = await makeTinyModel(join(dir, "export"), { fullVocab: true, seed: 3 });
    const prepared = (await prepareModel(original, join(dir, "prepared"))).dir;
    const oneRow = { maxBatchTokens: WINDOW, maxBatchRows: 1, maxWaitMs: 2 };
    const sixteen = { maxBatchTokens: 16 * WINDOW, maxBatchRows: 16, maxWaitMs: 120_000 };
    const run = (model: string, batch: typeof oneRow, samples = options.samples, extra = {}) =>
      child({ dir: model, samples, threads: options.threads, ...batch, ...extra });
    const a = await run(original, oneRow);
    const b = await run(prepared, oneRow);
    const batched =
      options.samples >= 16
        ? {
            ours: await run(prepared, sixteen, 16 * BATCHES),
            noArena: await run(prepared, sixteen, 16 * BATCHES, { memory: "no-arena" }),
          }
        : null;
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
  batched: { ours: ChildResult; noArena: ChildResult } | null,
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

/** Peak RSS at 16 × 2,048 and where it goes, from the stages the child sampled. */
function batchedRows(
  batched: { ours: ChildResult; noArena: ChildResult },
  attentionAt16: number,
  logitsAt16: number,
): [string, string, string][] {
  const { ours, noArena } = batched;
  const s = ours.stages;
  const n = noArena.stages;
  const mb = (value: number) => `${fmt(Math.round(value))} MB`;
  // Scores and their softmax are both live at once: two [16, heads, 2,048, 2,048] tensors.
  const attentionMb = (2 * attentionAt16) / 2 ** 20;
  const met = (peak: number) => (peak < TARGET_MB ? "met" : "NOT met");
  const both = (f: (stages: ChildResult["stages"]) => number) => `${mb(f(s))} | ${mb(f(n))}`;
  return [
    [
      "peak RSS, batch 16 × 2,048",
      `${mb(ours.peakRssMb)} | arena off ${mb(noArena.peakRssMb)}`,
      `target < ${fmt(TARGET_MB)} MB: ${met(ours.peakRssMb)} | ${met(noArena.peakRssMb)}; ${ours.batches} batches each; the original is not run: its logits alone would be ${bytes(logitsAt16)} per batch`,
    ],
    [
      "samples/s, batch 16 × 2,048",
      `${ours.samplesPerSecond.toFixed(3)} | arena off ${noArena.samplesPerSecond.toFixed(3)}`,
      `arena off ÷ default = ${(noArena.samplesPerSecond / ours.samplesPerSecond).toFixed(2)} (noisy shared host: a ratio of one run each)`,
    ],
    [
      "  1 process before load",
      both((x) => x.start.rssMb),
      "Assay: Node, tsx, the verifier's modules",
    ],
    [
      "  2 model load",
      both((x) => x.loaded.rssMb - x.start.rssMb),
      "Assay: onnxruntime + 20 MB of weights in the inference thread, the main-thread tokenizer, the fit thread and its tokenizer",
    ],
    [
      "  3 samples + warm-up",
      both((x) => x.warmed.rssMb - x.loaded.rssMb),
      `Assay: ${fmt(ours.batches * 16)} questions of ~2,100 tokens, one 3-token pass`,
    ],
    [
      "  4 batch peak above 1–3",
      both((x) => x.scored.peakMb - x.warmed.rssMb),
      `graph activations: ${mb(attentionMb)} of it is two live [16, ${HEADS}, 2,048, 2,048] float32 attention tensors (scores, softmax; ${bytes(attentionAt16)} each); the rest is the arena's rounding, inputs, other activations, outputs`,
    ],
    [
      "  after the batches",
      both((x) => x.scored.rssMb),
      "still resident once the last batch is done (the arena keeps its peak)",
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
