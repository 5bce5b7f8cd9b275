import type { Scorer, ScorerDefinition } from "@assay/core";
import type { ModelCache } from "./model-cache.js";
import { type PairwiseArgs, PairwiseArgsSchema } from "./pairwise-args.js";

/**
 * The `pairwise` scorer (GPU pool): a judge over two answers of one task, read from the
 * sample's `answer_a` and `answer_b` metadata. Selection plans its jobs (both orders of
 * each tournament pair); its value is P(answer A better than answer B).
 */
export function definePairwiseScorer(cache: ModelCache): ScorerDefinition<PairwiseArgs> {
  return {
    name: "pairwise",
    pool: "gpu",
    description: "ONNX pairwise judge: P(answer A better than B) from one forward pass",
    args: PairwiseArgsSchema,
    create(args: PairwiseArgs): Scorer {
      let scorer: Promise<Scorer> | undefined;
      return async (sample, context) => {
        scorer ??= Promise.all([
          cache.modelFor(args.model),
          import("./create-pairwise-scorer.js"),
        ]).then(([model, { createPairwiseScorer }]) => createPairwiseScorer(model));
        return (await scorer)(sample, context);
      };
    },
    close: () => cache.close(),
  };
}
