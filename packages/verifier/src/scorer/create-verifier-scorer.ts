import {
  type Sample,
  type Score,
  type ScoreContext,
  type Scorer,
  scored,
  unscored,
} from "@assay/core";
import { distributionValue } from "../heads/distribution.js";
import { probeValue } from "../heads/probe.js";
import type { VerifierModel } from "../model/verifier-model.js";
import { resolvePrompt } from "../template/resolve-prompt.js";
import { type PromptSpec, promptPlan } from "./prompt-plan.js";
import { type ResolvedHead, resolveHead } from "./resolve-head.js";
import { type VerifierArgs, type VerifierArgsInput, VerifierArgsSchema } from "./verifier-args.js";
import type { CriterionResult, VariantResult, VerifierDetail } from "./verifier-detail.js";

type FittedPrompt = { spec: PromptSpec; ids: number[] };

/**
 * A scorer over an already-loaded model (a worker loads the model once per process).
 * Throws VerifierArgsError now, not per sample, when the args cannot work with the model.
 */
export function createVerifierScorer(
  model: VerifierModel,
  input: VerifierArgsInput | VerifierArgs,
): Scorer {
  const args = VerifierArgsSchema.parse(input);
  const prompts = promptPlan(model, args);
  const head = resolveHead(model, args);
  return async (sample: Sample, context: ScoreContext): Promise<Score> => {
    const detail = emptyDetail(model, head, prompts.length);
    const fitted: FittedPrompt[] = [];
    for (const spec of prompts) {
      const result = await fitOne(model, args, spec, sample);
      if (result.kind === "missing") return unscored("invalid_target", result.message, detail);
      detail.truncations.push({
        ...result.record,
        criterion: spec.criterion.name,
        variant: spec.variant,
      });
      if (result.kind === "refused") return unscored("overflow", result.message, finish(detail));
      fitted.push({ spec, ids: result.ids });
    }
    context.signal?.throwIfAborted();
    const outputs = await Promise.all(fitted.map((f) => model.forward(f.ids, head.output)));
    outputs.forEach((out, i) => {
      detail.usage.inputTokens += fitted[i]?.ids.length ?? 0;
      detail.usage.computeMs += out.computeMs;
    });
    const values = fitted.map((f, i) =>
      variantResult(head, f.spec.variant, outputs[i]?.output ?? new Float32Array()),
    );
    detail.criteria = groupByCriterion(prompts, values);
    return finalScore(head, finish(detail));
  };
}

type FitOutcome =
  | { kind: "missing"; message: string }
  | { kind: "refused"; message: string; record: VerifierDetail["truncations"][number] }
  | { kind: "fit"; ids: number[]; record: VerifierDetail["truncations"][number] };

async function fitOne(
  model: VerifierModel,
  args: VerifierArgs,
  spec: PromptSpec,
  sample: Sample,
): Promise<FitOutcome> {
  const prompt = resolvePrompt(spec.template, sample, spec.criterion.text, spec.sanitizer);
  if (!prompt.ok) return { kind: "missing", message: prompt.message };
  const fit = await model.fit(prompt.pieces, {
    maxLength: model.config.max_length,
    margin: model.config.margin,
    policy: args.overflow,
  });
  const record = { ...fit.record, criterion: spec.criterion.name, variant: spec.variant };
  return fit.ok
    ? { kind: "fit", ids: fit.ids, record }
    : { kind: "refused", message: fit.message, record };
}

function variantResult(head: ResolvedHead, variant: number, vector: Float32Array): VariantResult {
  if (head.type === "probe") {
    const { raw, value } = probeValue(head, vector);
    return { variant, value, raw };
  }
  const { value, mass, distribution } = distributionValue(vector, head.scaleIds, head.minMass);
  return { variant, value, mass, distribution };
}

function groupByCriterion(
  prompts: readonly PromptSpec[],
  values: readonly VariantResult[],
): CriterionResult[] {
  const byName = new Map<string, CriterionResult>();
  prompts.forEach((spec, i) => {
    const result = byName.get(spec.criterion.name) ?? {
      name: spec.criterion.name,
      value: null,
      variants: [],
    };
    const value = values[i];
    if (value !== undefined) result.variants.push(value);
    byName.set(spec.criterion.name, result);
  });
  for (const result of byName.values()) result.value = mean(result.variants.map((v) => v.value));
  return [...byName.values()];
}

function finalScore(head: ResolvedHead, detail: VerifierDetail): Score {
  const values = detail.criteria.flatMap((c) => c.variants.map((v) => v.value));
  const final = mean(values);
  if (head.type === "distribution" && final === null) {
    const empty = detail.criteria.flatMap((c) =>
      c.variants.filter((v) => v.value === null).map((v) => `${c.name}/variant ${v.variant}`),
    );
    return unscored(
      "no_score_mass",
      `no probability mass on the scale tokens (${empty.join(", ")})`,
      detail,
    );
  }
  if (final === null || final < 0 || final > 1) {
    return unscored(
      "error",
      `probe value ${final} is outside [0, 1]; set head.sigmoid to true`,
      detail,
    );
  }
  return scored(final, detail);
}

function emptyDetail(model: VerifierModel, head: ResolvedHead, calls: number): VerifierDetail {
  return {
    head: head.type,
    ...(head.type === "distribution" && { scale: head.scale }),
    criteria: [],
    truncations: [],
    truncated: false,
    unreliable: false,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      computeMs: 0,
      device: model.device,
      model: model.name,
      calls,
    },
  };
}

function finish(detail: VerifierDetail): VerifierDetail {
  detail.truncated = detail.truncations.some((t) => t.truncated);
  detail.unreliable = detail.truncations.some((t) => t.unreliable);
  return detail;
}

function mean(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
}
