import type { Sample } from "@assay/core";
import { distributionValue } from "../heads/distribution.js";
import { distributionFromLogProbs } from "../heads/distribution-logprobs.js";
import { probeValue } from "../heads/probe.js";
import type { VerifierModel } from "../model/verifier-model.js";
import { resolvePrompt } from "../template/resolve-prompt.js";
import type { PromptSpec } from "./prompt-plan.js";
import type { ResolvedHead } from "./resolve-head.js";
import type { VerifierArgs } from "./verifier-args.js";
import type { VariantResult, VerifierDetail } from "./verifier-detail.js";

type Truncation = VerifierDetail["truncations"][number];

/**
 * Untrusted fields whose text was changed before it entered a prompt, and how many
 * occurrences: per field, the most any one prompt of the sample changed (each prompt fills
 * the same values, and variants may guard different delimiters).
 */
export type Altered = Record<string, number>;

/** One answer's C×K prompts, fitted in order (stopping at the first that cannot be). */
export type FitRun =
  | { kind: "missing"; message: string; truncations: Truncation[]; altered: Altered }
  | { kind: "refused"; message: string; truncations: Truncation[]; altered: Altered }
  | { kind: "fitted"; truncations: Truncation[]; ids: number[][]; altered: Altered };

/** One answer through the C×K prompts: fitted in order, then one forward pass each. */
export type PromptRun =
  | Exclude<FitRun, { kind: "fitted" }>
  | {
      kind: "ran";
      truncations: Truncation[];
      altered: Altered;
      /** One per prompt, in plan order. */
      values: VariantResult[];
      /** Tokens computed for these prompts. */
      inputTokens: number;
      /** Tokens read from a shared prefix's cache instead (0 without prefix reuse). */
      cachedTokens: number;
      computeMs: number;
      /** These prompts' share of the passes they ran in (each pass split over its rows). */
      forwardPasses: number;
    };

/** What the model, head and args fix for every answer a scorer sees. */
export interface PromptRunner {
  model: VerifierModel;
  args: VerifierArgs;
  prompts: readonly PromptSpec[];
  head: ResolvedHead;
}

/**
 * Fits each prompt (stopping at the first that cannot be built or fitted), then submits
 * all forward passes at once so the batcher can group them with other answers' passes.
 */
export async function runPrompts(
  runner: PromptRunner,
  sample: Sample,
  signal?: AbortSignal,
): Promise<PromptRun> {
  const fit = await fitPrompts(runner, sample);
  if (fit.kind !== "fitted") return fit;
  signal?.throwIfAborted();
  const { model, head } = runner;
  const scoreTokenIds = head.type === "distribution" ? head.scaleIds : [];
  const outputs = await Promise.all(
    fit.ids.map((ids) => model.forward(ids, head.output, scoreTokenIds)),
  );
  return ranRun(runner, fit, {
    vectors: outputs.map((out) => out.output),
    inputTokens: fit.ids.reduce((sum, ids) => sum + ids.length, 0),
    cachedTokens: 0,
    computeMs: outputs.reduce((sum, out) => sum + out.computeMs, 0),
    forwardPasses: outputs.reduce((sum, out) => sum + out.passShare, 0),
  });
}

/** Builds and fits each prompt of `sample`, stopping at the first that cannot be. */
export async function fitPrompts(runner: PromptRunner, sample: Sample): Promise<FitRun> {
  const { model, args, prompts } = runner;
  const truncations: Truncation[] = [];
  const fitted: number[][] = [];
  const altered: Altered = {};
  for (const spec of prompts) {
    const prompt = resolvePrompt(spec.template, sample, spec.criterion.text, spec.sanitizer);
    if (!prompt.ok) return { kind: "missing", message: prompt.message, truncations, altered };
    mergeAltered(altered, prompt.altered);
    const fit = await model.fit(prompt.pieces, {
      maxLength: model.config.max_length,
      margin: model.config.margin,
      policy: args.overflow,
    });
    truncations.push({ ...fit.record, criterion: spec.criterion.name, variant: spec.variant });
    if (!fit.ok) return { kind: "refused", message: fit.message, truncations, altered };
    fitted.push(fit.ids);
  }
  return { kind: "fitted", truncations, ids: fitted, altered };
}

/** Per field, the larger count of the two. */
export function mergeAltered(into: Altered, from: Readonly<Altered>): void {
  for (const [field, count] of Object.entries(from)) {
    into[field] = Math.max(into[field] ?? 0, count);
  }
}

/** The head applied to each prompt's output vector (in plan order). */
export function ranRun(
  runner: PromptRunner,
  fit: Extract<FitRun, { kind: "fitted" }>,
  outputs: {
    vectors: Float32Array[];
    inputTokens: number;
    cachedTokens: number;
    computeMs: number;
    forwardPasses: number;
  },
): PromptRun {
  const { model, prompts, head } = runner;
  return {
    kind: "ran",
    truncations: fit.truncations,
    altered: fit.altered,
    values: outputs.vectors.map((vector, i) =>
      variantResult(head, prompts[i]?.variant ?? i, vector, model.prepared),
    ),
    inputTokens: outputs.inputTokens,
    cachedTokens: outputs.cachedTokens,
    computeMs: outputs.computeMs,
    forwardPasses: outputs.forwardPasses,
  };
}

/** Mean of the values; null if there are none or any is unscored. */
export function meanValue(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
}

/** `prepared`: the vector is already what the head reads (the scale's log-probabilities). */
function variantResult(
  head: ResolvedHead,
  variant: number,
  vector: Float32Array,
  prepared: boolean,
): VariantResult {
  if (head.type === "probe") {
    const { raw, value } = probeValue(head, vector);
    return { variant, value, raw };
  }
  const { value, mass, distribution } = prepared
    ? distributionFromLogProbs(vector, head.minMass)
    : distributionValue(vector, head.scaleIds, head.minMass);
  return { variant, value, mass, distribution };
}
