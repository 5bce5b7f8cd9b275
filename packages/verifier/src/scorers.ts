// The scorer definitions alone (`@assay/verifier/scorers`): a registry names the verifier
// scorers and checks their args without loading onnxruntime, the tokenizers or the model
// code, which the definitions import when a scorer first needs its model.

export type { VerifierModel } from "./model/verifier-model.js";
export type { ModelCache, ModelCacheOptions } from "./scorer/model-cache.js";
export { definePairwiseScorer } from "./scorer/pairwise-definition.js";
export {
  defineVerifierScorer,
  defineVerifierScorers,
  type VerifierScorerOptions,
} from "./scorer/verifier-definition.js";
