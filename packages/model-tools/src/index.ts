export { type CheckModelOptions, type CheckRow, checkModel } from "./check/check-model.js";
export { describePrompt, type PromptView } from "./check/describe-prompt.js";
export { fillerText } from "./check/filler.js";
export { makeTinyModel, prepareModel } from "./graph-tools.js";
export {
  type CheckPreparedOptions,
  checkPrepared,
  type PreparedCheckRow,
} from "./prepare/check-prepared.js";
export type { PreparedModel, PrepareModelOptions } from "./prepare/prepare-model.js";
export {
  type CrossValidateOptions,
  DEFAULT_LAMBDAS,
  fitProbeVector,
  type LambdaResult,
  type ProbeFit,
} from "./probe/cross-validate.js";
export { evaluateHead, type HeadEvaluation } from "./probe/evaluate-head.js";
export { type FittedProbe, fitProbe, type ProbeFitReport } from "./probe/fit-probe.js";
export { collectHiddenStates, type HiddenStates, hiddenOutputOf } from "./probe/hidden-states.js";
export {
  PROBE_FIT_FILE,
  type WrittenProbeModel,
  writeProbeModel,
} from "./probe/write-probe-model.js";
export type { TinyModelOptions } from "./tiny/make-tiny-model.js";
export { tinyPairwiseConfig } from "./tiny/tiny-pairwise.js";
export { tinyDistributionTemplates } from "./tiny/tiny-template.js";
