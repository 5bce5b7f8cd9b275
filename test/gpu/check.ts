/**
 * Scores the same samples with the tiny with-past decoders (distribution and probe heads)
 * on `cpu` and on the given CUDA device, with and without prefix reuse, and with their
 * prepared copies (past inputs and present outputs kept) with prefix reuse; every value
 * must agree with the export on cpu without reuse within 1e-3. Prints tokens/s for each.
 * Run by check.sh.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sample, Score } from "@assay/core";
import { makeTinyModel, prepareModel, tinyDistributionTemplates } from "@assay/model-tools";
import { maxScoreDifference } from "@assay/test-support/score-difference";
import { createVerifierScorer, loadModel, type VerifierModel } from "@assay/verifier";

const TOLERANCE = 1e-3;
const CRITERIA = ["The answer is correct.", "Every step follows.", "It is complete."];
const device = process.argv[2] ?? "cuda:0";

const root = mkdtempSync(join(tmpdir(), "assay-gpu-check-"));
let failed = false;
try {
  for (const head of ["distribution", "probe"] as const) {
    const dir = await makeTinyModel(join(root, head), {
      head,
      withPast: true,
      // Small enough that the cpu runs finish in about a minute on a 16-core host.
      layers: 2,
      hidden: 128,
      heads: 4,
      seed: 3,
    });
    const prepared = (await prepareModel(dir, join(root, `${head}-prepared`))).dir;
    const runs: { name: string; scores: Score[]; tokensPerSecond: number; computed: number }[] = [];
    const ways = [
      { graph: "export", folder: dir, reusePrefixes: false },
      { graph: "export", folder: dir, reusePrefixes: true },
      { graph: "prepared", folder: prepared, reusePrefixes: true },
    ];
    for (const where of ["cpu", device]) {
      for (const { graph, folder, reusePrefixes } of ways) {
        const model = await load(folder, where, reusePrefixes);
        try {
          if (reusePrefixes && !model.reusesPrefixes) {
            throw new Error(`the ${graph} graph of the ${head} head does not reuse prefixes`);
          }
          runs.push({
            name: `${head} ${graph} ${where} ${reusePrefixes ? "reuse" : "no reuse"}`,
            ...(await scoreAll(model)),
          });
        } finally {
          await model.close();
        }
      }
    }
    const baseline = runs[0];
    for (const run of runs) {
      const gap = baseline === undefined ? 0 : maxScoreDifference(baseline.scores, run.scores);
      const ok = gap < TOLERANCE;
      failed ||= !ok;
      console.log(
        `${run.name.padEnd(42)} ${run.tokensPerSecond.toFixed(0).padStart(9)} tokens/s  computed ${String(run.computed).padStart(7)}  max |Δ| vs export cpu no reuse ${gap.toExponential(2)} ${ok ? "ok" : "FAIL"}`,
      );
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
if (failed) {
  console.error(`gpu check: values differ by ${TOLERANCE} or more between devices or paths`);
  process.exit(1);
}
console.log(
  "gpu check: cpu and cuda agree within 1e-3, with and without prefix reuse, exported and prepared",
);

async function load(dir: string, where: string, reusePrefixes: boolean): Promise<VerifierModel> {
  try {
    return await loadModel(dir, { device: where, reusePrefixes, batch: { maxWaitMs: 5 } });
  } catch (error) {
    if (where === "cpu") throw error;
    console.error(`gpu check: no CUDA provider on ${where}: ${(error as Error).message}`);
    process.exit(3);
  }
}

/** Tokens sent ÷ wall seconds (after one warm-up sample), and tokens computed. */
async function scoreAll(model: VerifierModel) {
  const scorer = createVerifierScorer(model, {
    model: model.name,
    criteria: CRITERIA,
    variants: tinyDistributionTemplates().slice(0, 2),
    repetitions: 2,
  });
  const inputs = samples();
  await scorer(inputs[0] as Sample, {});
  const started = performance.now();
  const scores = await Promise.all(inputs.map((s) => scorer(s, {})));
  const seconds = (performance.now() - started) / 1000;
  const usage = scores.map((s) => s.calls?.usage);
  const computed = usage.reduce((sum, u) => sum + (u?.inputTokens ?? 0), 0);
  const sent = usage.reduce(
    (sum, u) => sum + (u?.inputTokens ?? 0) + (u?.cachedInputTokens ?? 0),
    0,
  );
  return { scores, tokensPerSecond: sent / seconds, computed };
}

/** 16 samples: 8 with 8-step trajectories, 8 plain; the same on every device. */
function samples(): Sample[] {
  return Array.from({ length: 16 }, (_, i) => {
    const steps = Array.from(
      { length: 8 },
      (_, s) =>
        `Step ${s + 1}: item ${i * 8 + s} weighs ${(i + 1) * (s + 3)} grams, so the total grows.`,
    );
    const question = `Question ${i}: ${"What is the total weight of the items listed? ".repeat(1 + (i % 4))}`;
    return {
      id: String(i),
      taskId: String(i),
      candidateIndex: 0,
      question,
      answer: i % 2 === 0 ? steps.join("\n") : `The total is ${i * 37} grams.`,
      ...(i % 2 === 0 && { steps }),
      metadata: {},
      line: i + 1,
    };
  });
}
