import type { Scorer, ScorerDefinition } from "@assay/core";
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
  // One scorer per distinct args: `check` builds it (so the args are checked against the
  // model once, before a run) and every sample of a run then uses that same scorer.
  const scorers = new Map<string, Promise<Scorer>>();
  const scorerFor = (args: VerifierArgs): Promise<Scorer> => {
    const key = JSON.stringify(args);
    let scorer = scorers.get(key);
    if (scorer === undefined) {
      scorer = Promise.all([
        cache.modelFor(args.model),
        import("./create-verifier-scorer.js"),
      ]).then(([model, { createVerifierScorer }]) => createVerifierScorer(model, args));
      scorers.set(key, scorer);
    }
    return scorer;
  };
  return {
    name: "verifier",
    pool: "gpu",
    description:
      "ONNX verifier model: one forward pass per prompt, probe or score-distribution head",
    args: VerifierArgsSchema,
    create(args: VerifierArgs): Scorer {
      return async (sample, context) => (await scorerFor(args))(sample, context);
    },
    /** Loads the model and builds the scorer: VerifierArgsError (a SpecError) when they clash. */
    async check(args: VerifierArgs): Promise<void> {
      await scorerFor(args);
    },
    async close() {
      scorers.clear();
      await cache.close();
    },
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
