/**
 * Prefix reuse on the tiny with-past decoder: the same samples (C = 3 criteria × K = 2
 * variants, trajectories of 8 steps, so 6 prompts for the answer and for each of its 8
 * prefixes) scored by the same export loaded twice, once computing every shared prefix
 * once and once running every prompt whole. Rounds alternate the two; wall times are
 * medians. Targets: ≥ 3× fewer computed tokens, ≥ 2× less wall time on CPU.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sample, Score } from "@assay/core";
import { maxScoreDifference } from "@assay/test-support/score-difference";
import {
  createVerifierScorer,
  loadModel,
  makeTinyModel,
  tinyDistributionTemplates,
  type VerifierModel,
} from "@assay/verifier";
import { fillerText } from "../../packages/verifier/src/check/filler.js";
import { median } from "./bench-util.js";

const CRITERIA = [
  "The answer is correct.",
  "Every step follows from the ones before it.",
  "The answer addresses every part of the question.",
];
const STEPS = 8;
const ROUNDS = 3;

export async function reuseBench(options: {
  samples: number;
  threads: number;
  layers: number;
  hidden: number;
  batch: { maxBatchTokens: number; maxBatchRows: number; maxWaitMs: number };
}): Promise<[string, string, string][]> {
  const dir = mkdtempSync(join(tmpdir(), "assay-bench-reuse-"));
  try {
    await makeTinyModel(dir, {
      layers: options.layers,
      hidden: options.hidden,
      heads: 4,
      seed: 3,
      head: "distribution",
      withPast: true,
    });
    const load = (reusePrefixes: boolean) =>
      loadModel(dir, { threads: options.threads, batch: options.batch, reusePrefixes });
    const reuse = await load(true);
    const plain = await load(false);
    try {
      const samples = trajectories(reuse, options.samples);
      const args = {
        model: dir,
        criteria: CRITERIA,
        variants: tinyDistributionTemplates().slice(0, 2),
        repetitions: 2,
      };
      const scoreAll = async (model: VerifierModel) => {
        const scorer = createVerifierScorer(model, args);
        await scorer(samples[0] as Sample, {}); // warm-up, excluded below
        const started = performance.now();
        const scores = await Promise.all(samples.map((s) => scorer(s, {})));
        return { ms: performance.now() - started, scores };
      };
      const plainMs: number[] = [];
      const reuseMs: number[] = [];
      let plainScores: Score[] = [];
      let reuseScores: Score[] = [];
      const plainBefore = plain.stats();
      const reuseBefore = reuse.prefixReuseStats();
      for (let round = 0; round < ROUNDS; round++) {
        const a = await scoreAll(plain);
        const b = await scoreAll(reuse);
        plainMs.push(a.ms);
        reuseMs.push(b.ms);
        plainScores = a.scores;
        reuseScores = b.scores;
      }
      const plainStats = plain.stats();
      const reuseStats = reuse.prefixReuseStats();
      // Per round (the warm-up sample included once per round).
      const perRound = (value: number) => Math.round(value / ROUNDS);
      const plainPadded = perRound(plainStats.computedTokens - plainBefore.computedTokens);
      const plainReal = perRound(plainStats.realTokens - plainBefore.realTokens);
      const reusePadded = perRound(reuseStats.paddedTokens - reuseBefore.paddedTokens);
      const reuseComputed = perRound(reuseStats.computedTokens - reuseBefore.computedTokens);
      const reuseSent = perRound(reuseStats.inputTokens - reuseBefore.inputTokens);
      const usage = (scores: Score[], key: "inputTokens" | "cachedInputTokens") =>
        scores.reduce((sum, s) => sum + ((s.calls?.usage[key] as number | undefined) ?? 0), 0);
      const gap = maxScoreDifference(plainScores, reuseScores);
      const plainWall = median(plainMs);
      const reuseWall = median(reuseMs);
      return [
        [
          "reuse: samples",
          String(samples.length),
          `C=3 criteria × K=2 variants × (answer + ${STEPS} prefixes) = ${6 * (STEPS + 1)} prompts each`,
        ],
        [
          "reuse: model",
          `tiny with-past decoder ${options.layers}×${options.hidden}`,
          `cpu, ${options.threads} intra-op threads, ${ROUNDS} alternating rounds`,
        ],
        [
          "reuse: tokens sent",
          String(plainReal),
          `same prompts both ways (reuse side: ${reuseSent})`,
        ],
        [
          "reuse: computed tokens, no reuse",
          String(plainPadded),
          `padded rows × longest (real ${plainReal})`,
        ],
        [
          "reuse: computed tokens, reuse",
          String(reusePadded),
          `padded rows × longest (real ${reuseComputed}; usage: ${usage(reuseScores, "inputTokens")} computed, ${usage(reuseScores, "cachedInputTokens")} cached)`,
        ],
        [
          "reuse: computed-token ratio",
          `${(plainPadded / reusePadded).toFixed(2)}×`,
          `no reuse ÷ reuse, padded (real: ${(plainReal / reuseComputed).toFixed(2)}×); target ≥ 3×`,
        ],
        [
          "reuse: wall time, no reuse",
          `${plainWall.toFixed(0)} ms`,
          `median of ${plainMs.map((ms) => ms.toFixed(0)).join(", ")}`,
        ],
        [
          "reuse: wall time, reuse",
          `${reuseWall.toFixed(0)} ms`,
          `median of ${reuseMs.map((ms) => ms.toFixed(0)).join(", ")}`,
        ],
        [
          "reuse: wall-time ratio",
          `${(plainWall / reuseWall).toFixed(2)}×`,
          "no reuse ÷ reuse; target ≥ 2× (noisy shared machine: read the ratio)",
        ],
        [
          "reuse: largest score difference",
          gap.toExponential(2),
          "every value and progress entry; must be < 1e-4",
        ],
      ];
    } finally {
      await Promise.all([reuse.close(), plain.close()]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
