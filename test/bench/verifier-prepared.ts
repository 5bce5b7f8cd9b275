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
}

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
    const run = (model: string, batch: typeof oneRow) =>
      child({ dir: model, samples: options.samples, threads: options.threads, ...batch });
    const a = await run(original, oneRow);
    const b = await run(prepared, oneRow);
    const c = options.samples >= 16 ? await run(prepared, sixteen) : null;
    return rows(options, a, b, c);
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
  batched: ChildResult | null,
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
      "whole process: Node, two tokenizer copies (main + fit thread), onnxruntime",
    ],
    batched === null
      ? ["peak RSS, batch 16 × 2,048", "not run", "needs --samples 16 or more"]
      : [
          "peak RSS, batch 16 × 2,048",
          `prepared ${fmt(batched.peakRssMb)} MB`,
          `target < 1 GB; ${batched.batches} batch(es), ${batched.samplesPerSecond.toFixed(3)} samples/s; ${fmt(prepared.peakRssMb)} MB is the 1-row process, the rest the tiny graph's unfused attention (${bytes(attentionAt16)} per [16, ${HEADS}, 2,048, 2,048] float32 score tensor). The original is not run: its logits alone would be ${bytes(logitsAt16)} per batch`,
        ],
    [
      "max |Δ| original vs prepared",
      delta.toExponential(1),
      "final values of the same samples; limit 1e-5",
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
