import type { Scorer, ScorerDefinition } from "@assay/core";
import { createVerifierScorer } from "./create-verifier-scorer.js";
import { type ModelCache, type ModelCacheOptions, modelCache } from "./model-cache.js";
import { definePairwiseScorer } from "./pairwise-definition.js";
import { type VerifierArgs, VerifierArgsSchema } from "./verifier-args.js";

export type VerifierScorerOptions = ModelCacheOptions;

/**
 * The `verifier` scorer (GPU pool). Models are loaded on first use and shared by every
 * scorer built from this definition, so a worker process loads each model once.
 */
export function defineVerifierScorer(
  options: VerifierScorerOptions | ModelCache = {},
): ScorerDefinition<VerifierArgs> {
  const cache = "modelFor" in options ? options : modelCache(options);
  return {
    name: "verifier",
    pool: "gpu",
    description:
      "ONNX verifier model: one forward pass per prompt, probe or score-distribution head",
    args: VerifierArgsSchema,
    create(args: VerifierArgs): Scorer {
      let scorer: Promise<Scorer> | undefined;
      return async (sample, context) => {
        scorer ??= cache.modelFor(args.model).then((model) => createVerifierScorer(model, args));
        return (await scorer)(sample, context);
      };
    },
    close: () => cache.close(),
  };
}

/** `verifier` and `pairwise` over one model cache: a model both use is loaded once. */
export function defineVerifierScorers(
  options: VerifierScorerOptions = {},
): [ScorerDefinition<VerifierArgs>, ReturnType<typeof definePairwiseScorer>] {
  const cache = modelCache(options);
  return [defineVerifierScorer(cache), definePairwiseScorer(cache)];
}

/** The definition with default options (CPU, onnxruntime's thread count). */
export const verifierScorer: ScorerDefinition<VerifierArgs> = defineVerifierScorer();
