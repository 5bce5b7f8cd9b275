import { type Sample, type Score, type Scorer, scored, unscored } from "@assay/core";
import { PAIR_SLOTS, type PairwiseConfig } from "../config/assay-config.js";
import { VerifierArgsError } from "../errors/verifier-args-error.js";
import type { TruncationRecord } from "../fit/truncation-record.js";
import { distributionValue } from "../heads/distribution.js";
import { scaleTokenIds } from "../heads/scale.js";
import type { VerifierModel } from "../model/verifier-model.js";
import { resolvePrompt } from "../template/resolve-prompt.js";
import { emptyUsage, type VerifierUsage } from "./verifier-detail.js";

/** The criterion name of a pairwise judgment's truncation record. */
export const PAIRWISE_CRITERION = "pairwise";

/** `score.detail` of a pairwise judgment. */
export interface PairwiseDetail extends Record<string, unknown> {
  head: "pairwise";
  /** The tokens naming answer A and answer B. */
  choices: [string, string];
  /** p(A) + p(B) under the full softmax: how much the model meant either choice. */
  mass: number;
  truncations: (TruncationRecord & { criterion: string; variant: number })[];
  usage: VerifierUsage;
  /** The Hub commit sha of a hub-id model. */
  revision?: string;
  /** As a verifier score's: untrusted fields changed before they entered the prompt. */
  altered?: Record<string, number>;
}

/**
 * A scorer over an already-loaded model: fits the pairwise template with both answers
 * whole (or refuses the call: unscored, `overflow`, with its truncation record), runs one
 * forward pass, and returns P(A better) = p(A) / (p(A) + p(B)) at the score position.
 * Throws VerifierArgsError now, not per pair, when the model cannot judge pairs.
 */
export function createPairwiseScorer(model: VerifierModel): Scorer {
  const config = pairwiseConfigOf(model);
  // Worst first, as a distribution head reads it: φ(B) = 0, φ(A) = 1, so R = P(A better).
  const checked = scaleTokenIds(model.tokenizer, [config.choices[1], config.choices[0]]);
  if (!checked.ok) throw new VerifierArgsError(`pairwise.choices: ${checked.message}`);
  const choiceIds = checked.ids;
  const sanitizer = model.untrustedFilter(config.template);
  return async (sample: Sample, context): Promise<Score> => {
    const detail = emptyDetail(model, config);
    const missing = PAIR_SLOTS.filter((slot) => typeof sample.metadata[slot] !== "string");
    if (missing.length > 0) {
      return unscored(
        "invalid_target",
        `a pairwise judgment needs ${missing.join(" and ")}`,
        detail,
      );
    }
    const prompt = resolvePrompt(config.template, sample, "", sanitizer);
    if (!prompt.ok) return unscored("invalid_target", prompt.message, detail);
    if (Object.keys(prompt.altered).length > 0) detail.altered = prompt.altered;
    const fit = await model.fit(prompt.pieces, {
      maxLength: model.config.max_length,
      margin: model.config.margin,
      policy: "error",
    });
    detail.truncations.push({ ...fit.record, criterion: PAIRWISE_CRITERION, variant: 0 });
    if (!fit.ok) return withCalls(unscored("overflow", fit.message, detail), detail);
    context.signal?.throwIfAborted();
    const out = await model.forward(fit.ids, config.output, choiceIds);
    const { value, mass } = distributionValue(out.output, choiceIds, 0);
    detail.mass = mass;
    detail.usage.inputTokens = fit.ids.length;
    detail.usage.computeMs = out.computeMs;
    detail.usage.prompts = 1;
    detail.usage.forwardPasses = out.passShare;
    if (value === null) {
      return withCalls(
        unscored("no_score_mass", "no probability mass on the two choice tokens", detail),
        detail,
      );
    }
    return withCalls(scored(value, detail), detail);
  };
}

function pairwiseConfigOf(model: VerifierModel): PairwiseConfig {
  const config = model.config.pairwise;
  if (config === undefined) {
    throw new VerifierArgsError(
      `the model ${model.name} has no \`pairwise\` section in its assay.json (a template with \`answer_a\` and \`answer_b\` slots); add one to judge pairs`,
    );
  }
  if (model.prepared) {
    throw new VerifierArgsError(
      `the model ${model.name} is a prepared graph that returns only its score scale; judge pairs with the exported graph`,
    );
  }
  if (!model.session.outputNames.includes(config.output)) {
    throw new VerifierArgsError(
      `pairwise.output \`${config.output}\` is not an output of the graph (outputs: ${model.session.outputNames.join(", ")})`,
    );
  }
  return config;
}

function emptyDetail(model: VerifierModel, config: PairwiseConfig): PairwiseDetail {
  return {
    head: "pairwise",
    choices: config.choices,
    mass: 0,
    truncations: [],
    usage: emptyUsage(model, 1),
    ...(model.revision !== null && { revision: model.revision }),
  };
}

/** One prompt, so its record takes the score row's criterion "" and joins it on the whole key. */
function withCalls(score: Score, detail: PairwiseDetail): Score {
  const truncations = detail.truncations.map((t) => ({ ...t, criterion: "" }));
  return { ...score, calls: { truncations, usage: detail.usage } };
}
