import {
  type Sample,
  type Score,
  type ScoreContext,
  type Scorer,
  scored,
  unscored,
} from "@assay/core";
import { renderedDate } from "../chat/chat-template.js";
import type { VerifierModel } from "../model/verifier-model.js";
import type { PromptSpec } from "./prompt-plan.js";
import { promptPlan } from "./prompt-plan.js";
import { type ResolvedHead, resolveHead } from "./resolve-head.js";
import {
  type Altered,
  meanValue,
  mergeAltered,
  type PromptRun,
  type PromptRunner,
  runPrompts,
} from "./run-prompts.js";
import { runSharingPrefixes } from "./run-sharing-prefixes.js";
import { progressValue, trajectoryPrefixes } from "./trajectory.js";
import { type VerifierArgs, type VerifierArgsInput, VerifierArgsSchema } from "./verifier-args.js";
import {
  type CriterionResult,
  emptyUsage,
  type VariantResult,
  type VerifierDetail,
} from "./verifier-detail.js";

/**
 * A scorer over an already-loaded model (a worker loads the model once per process).
 * Throws VerifierArgsError now, not per sample, when the args cannot work with the model.
 */
export function createVerifierScorer(
  model: VerifierModel,
  input: VerifierArgsInput | VerifierArgs,
): Scorer {
  const args = VerifierArgsSchema.parse(input);
  const runner: PromptRunner = {
    model,
    args,
    prompts: promptPlan(model, args),
    head: resolveHead(model, args),
  };
  return async (sample: Sample, context: ScoreContext): Promise<Score> => {
    // The answer and every trajectory prefix at once: their passes share the batcher.
    const prefixes = trajectoryPrefixes(sample);
    const answers = [sample, ...prefixes];
    const [run, ...steps] = model.reusesPrefixes
      ? await runSharingPrefixes(runner, answers, context.signal)
      : await Promise.all(answers.map((s) => runPrompts(runner, s, context.signal)));
    if (run === undefined) throw new Error("unreachable: no prompt run for the answer");
    const detail = emptyDetail(runner, 1 + prefixes.length);
    const criteria = new Set(runner.prompts.map((p) => p.criterion.name)).size;
    if (prefixes.length > 0) addProgress(detail, steps);
    addAltered(detail, [run, ...steps]);
    if (run.kind === "missing") {
      return withCalls(unscored("invalid_target", run.message, detail), detail, criteria);
    }
    detail.truncations.push(...run.truncations);
    if (run.kind === "refused") {
      return withCalls(unscored("overflow", run.message, finish(detail)), detail, criteria);
    }
    addUsage(detail, run);
    detail.criteria = groupByCriterion(runner.prompts, run.values);
    return withCalls(finalScore(runner.head, finish(detail)), detail, criteria);
  };
}

/**
 * The truncation records and usage the job handler stores as rows, returned typed beside
 * the score; `detail` keeps them too, for `assay show` and exports. With a single criterion
 * a record's criterion is "", the score row's, so it joins its score on the whole key.
 */
function withCalls(score: Score, detail: VerifierDetail, criteria: number): Score {
  const truncations =
    criteria === 1 ? detail.truncations.map((t) => ({ ...t, criterion: "" })) : detail.truncations;
  return { ...score, calls: { truncations, usage: detail.usage } };
}

/** The fields any of the sample's runs (answer, trajectory prefixes) changed; none: no key. */
function addAltered(detail: VerifierDetail, runs: readonly PromptRun[]): void {
  const altered: Altered = {};
  for (const run of runs) mergeAltered(altered, run.altered);
  if (Object.keys(altered).length > 0) detail.altered = altered;
}

/** The progress curve; prefix passes count in usage (they ran) but not in `truncations`. */
function addProgress(detail: VerifierDetail, steps: readonly PromptRun[]): void {
  detail.progress = steps.map(progressValue);
  for (const step of steps) {
    if (step.kind === "ran") addUsage(detail, step);
  }
}

function addUsage(detail: VerifierDetail, run: Extract<PromptRun, { kind: "ran" }>): void {
  detail.usage.inputTokens += run.inputTokens;
  detail.usage.cachedInputTokens += run.cachedTokens;
  detail.usage.computeMs += run.computeMs;
  detail.usage.prompts += run.values.length;
  detail.usage.forwardPasses += run.forwardPasses;
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
  for (const result of byName.values())
    result.value = meanValue(result.variants.map((v) => v.value));
  return [...byName.values()];
}

function finalScore(head: ResolvedHead, detail: VerifierDetail): Score {
  const values = detail.criteria.flatMap((c) => c.variants.map((v) => v.value));
  const final = meanValue(values);
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

/** `answers` is 1 + the number of trajectory prefixes: each goes through every prompt. */
function emptyDetail(runner: PromptRunner, answers: number): VerifierDetail {
  const { model, head, prompts } = runner;
  const date = renderedDate(model.chat);
  return {
    head: head.type,
    ...(head.type === "distribution" && { scale: head.scale }),
    ...(model.config.family !== undefined && { family: model.config.family }),
    ...(model.revision !== null && { revision: model.revision }),
    ...(date !== null && { templateDate: date }),
    criteria: [],
    truncations: [],
    truncated: false,
    unreliable: false,
    usage: emptyUsage(model, prompts.length * answers),
  };
}

function finish(detail: VerifierDetail): VerifierDetail {
  detail.truncated = detail.truncations.some((t) => t.truncated);
  detail.unreliable = detail.truncations.some((t) => t.unreliable);
  return detail;
}
