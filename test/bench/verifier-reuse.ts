/**
 * Prefix reuse on the tiny with-past decoder: the same samples (C = 3 criteria × K = 2
 * variants, trajectories of 8 steps, so 6 prompts for the answer and for each of its 8
 * prefixes) scored three ways: the export running every prompt whole (the baseline), the
 * export computing every shared prefix once, and its prepared copy (`prepareModel`: past
 * inputs and present outputs kept, `score_logprobs` instead of logits) computing every
 * shared prefix once. Rounds alternate the three; wall times are medians. Targets: ≥ 3×
 * fewer computed tokens, ≥ 2× less wall time on CPU.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sample, Score } from "@assay/core";
import {
  fillerText,
  makeTinyModel,
  prepareModel,
  tinyDistributionTemplates,
} from "@assay/model-tools";
import { maxScoreDifference } from "@assay/test-support/score-difference";
import { createVerifierScorer, loadModel, type VerifierModel } from "@assay/verifier";
import { median } from "./bench-util.js";

const CRITERIA = [
  "The answer is correct.",
  "Every step follows from the ones before it.",
  "The answer addresses every part of the question.",
];
const STEPS = 8;
const ROUNDS = 3;

type Row = [string, string, string];

interface Variant {
  name: string;
  model: VerifierModel;
  ms: number[];
  scores: Score[];
}

export async function reuseBench(options: {
  samples: number;
  threads: number;
  layers: number;
  hidden: number;
  batch: { maxBatchTokens: number; maxBatchRows: number; maxWaitMs: number };
}): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "assay-bench-reuse-"));
  const variants: Variant[] = [];
  try {
    const dir = join(root, "export");
    await makeTinyModel(dir, {
      layers: options.layers,
      hidden: options.hidden,
      heads: 4,
      seed: 3,
      head: "distribution",
      withPast: true,
    });
    const prepared = (await prepareModel(dir, join(root, "prepared"))).dir;
    const load = async (name: string, folder: string, reusePrefixes: boolean) => {
      const model = await loadModel(folder, {
        threads: options.threads,
        batch: options.batch,
        reusePrefixes,
      });
      variants.push({ name, model, ms: [], scores: [] });
    };
    await load("export, no reuse", dir, false);
    await load("export, reuse", dir, true);
    await load("prepared, reuse", prepared, true);
    const [plain, reuse, preparedReuse] = variants as [Variant, Variant, Variant];
    if (!preparedReuse.model.prepared || !preparedReuse.model.reusesPrefixes) {
      throw new Error("the prepared with-past graph does not reuse prefixes");
    }

    const samples = trajectories(plain.model, options.samples);
    const args = {
      model: dir,
      criteria: CRITERIA,
      variants: tinyDistributionTemplates().slice(0, 2),
      repetitions: 2,
    };
    const scorers = variants.map((v) => createVerifierScorer(v.model, args));
    const before = variants.map((v) => ({
      batches: v.model.stats(),
      shared: v.model.prefixReuseStats(),
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, variant] of variants.entries()) {
        const scorer = scorers[i];
        if (scorer === undefined) continue;
        await scorer(samples[0] as Sample, {}); // warm-up, excluded below
        const started = performance.now();
        variant.scores = await Promise.all(samples.map((s) => scorer(s, {})));
        variant.ms.push(performance.now() - started);
      }
    }
    // Per round (the warm-up sample included once per round).
    const perRound = (value: number) => Math.round(value / ROUNDS);
    const plainBatches = plain.model.stats();
    const plainPadded = perRound(
      plainBatches.computedTokens - (before[0]?.batches.computedTokens ?? 0),
    );
    const plainReal = perRound(plainBatches.realTokens - (before[0]?.batches.realTokens ?? 0));
    const sharedTokens = (variant: Variant) => {
      const now = variant.model.prefixReuseStats();
      const then = before[variants.indexOf(variant)]?.shared ?? now;
      return {
        padded: perRound(now.paddedTokens - then.paddedTokens),
        computed: perRound(now.computedTokens - then.computedTokens),
        sent: perRound(now.inputTokens - then.inputTokens),
      };
    };
    const usage = (scores: Score[], key: "inputTokens" | "cachedInputTokens") =>
      scores.reduce((sum, s) => sum + ((s.calls?.usage[key] as number | undefined) ?? 0), 0);
    const plainWall = median(plain.ms);
    const rows: Row[] = [
      [
        "reuse: samples",
        String(samples.length),
        `C=3 criteria × K=2 variants × (answer + ${STEPS} prefixes) = ${6 * (STEPS + 1)} prompts each`,
      ],
      [
        "reuse: model",
        `tiny with-past decoder ${options.layers}×${options.hidden}`,
        `cpu, ${options.threads} intra-op threads, ${ROUNDS} alternating rounds; prepared copy keeps past/present`,
      ],
      [
        "reuse: tokens sent",
        String(plainReal),
        `same prompts every way (reuse side: ${sharedTokens(reuse).sent})`,
      ],
      [
        "reuse: computed tokens, no reuse",
        String(plainPadded),
        `padded rows × longest (real ${plainReal})`,
      ],
    ];
    for (const variant of [reuse, preparedReuse]) {
      const tokens = sharedTokens(variant);
      rows.push(
        [
          `reuse: computed tokens, ${variant.name}`,
          String(tokens.padded),
          `padded rows × longest (real ${tokens.computed}; usage: ${usage(variant.scores, "inputTokens")} computed, ${usage(variant.scores, "cachedInputTokens")} cached)`,
        ],
        [
          `reuse: computed-token ratio, ${variant.name}`,
          `${(plainPadded / tokens.padded).toFixed(2)}×`,
          `no reuse ÷ reuse, padded (real: ${(plainReal / tokens.computed).toFixed(2)}×); target ≥ 3×`,
        ],
      );
    }
    for (const variant of variants) {
      rows.push([
        `reuse: wall time, ${variant.name}`,
        `${median(variant.ms).toFixed(0)} ms`,
        `median of ${variant.ms.map((ms) => ms.toFixed(0)).join(", ")}`,
      ]);
    }
    for (const variant of [reuse, preparedReuse]) {
      rows.push([
        `reuse: wall-time ratio, ${variant.name}`,
        `${(plainWall / median(variant.ms)).toFixed(2)}×`,
        "export without reuse ÷ this; target ≥ 2× (noisy shared machine: read the ratio)",
      ]);
    }
    for (const variant of [reuse, preparedReuse]) {
      rows.push([
        `reuse: largest score difference, ${variant.name}`,
        maxScoreDifference(plain.scores, variant.scores).toExponential(2),
        "vs export without reuse, every value and progress entry; must be < 1e-4",
      ]);
    }
    return rows;
  } finally {
    await Promise.all(variants.map((v) => v.model.close()));
    rmSync(root, { recursive: true, force: true });
  }
}

/** Samples whose answers are 8-step trajectories; lengths vary from sample to sample. */
function trajectories(model: VerifierModel, count: number): Sample[] {
  return Array.from({ length: count }, (_, i) => {
    const steps = Array.from(
      { length: STEPS },
      (_, s) =>
        `Step ${s + 1}: ${fillerText(model.tokenizer, 12 + ((i * 7 + s * 5) % 20), i * 31 + s)}`,
    );
    return {
      id: String(i),
      taskId: String(i),
      candidateIndex: 0,
      question: fillerText(model.tokenizer, 60 + ((i * 13) % 80), i),
      answer: steps.join("\n"),
      steps,
      metadata: {},
      line: i + 1,
    };
  });
}
