export {
  type BatchedResult,
  Batcher,
  type BatcherOptions,
  type BatchRecord,
  type BatchStats,
} from "./batch/batcher.js";
export {
  type BatchLimits,
  DEFAULT_BATCH_ROWS,
  DEFAULT_BATCH_TOKENS,
  nextBatchSize,
  paddingEfficiency,
  planBatches,
} from "./batch/plan-batches.js";
export {
  type ChatMessage,
  type ChatSpec,
  chatMessages,
  renderChat,
} from "./chat/chat-template.js";
export { hasChatTemplate, readChatSpec } from "./chat/read-chat-spec.js";
export { DEFAULT_TEMPLATE_DATE, strftimeOn } from "./chat/template-date.js";
export {
  type AssayConfig,
  type AssayConfigInput,
  AssayConfigSchema,
  type Criterion,
  type HeadConfig,
  PAIR_SLOTS,
  type PairwiseConfig,
  type Template,
  type TemplatePiece,
} from "./config/assay-config.js";
export { HubError, type HubFailure } from "./errors/hub-error.js";
export { ModelFolderError } from "./errors/model-folder-error.js";
export { VerifierArgsError } from "./errors/verifier-args-error.js";
export { type FitOptions, type FitResult, fitPrompt } from "./fit/fit.js";
export type { OverflowPolicy, SlotCut, TruncationRecord } from "./fit/truncation-record.js";
export { PREPARED, type PreparedHead } from "./graph/prepared-names.js";
export { type DistributionValue, distributionValue } from "./heads/distribution.js";
export { distributionFromLogProbs } from "./heads/distribution-logprobs.js";
export { type ProbeHead, type ProbeValue, probeValue } from "./heads/probe.js";
export { type ScaleCheck, scaleTokenIds } from "./heads/scale.js";
export type { DownloadProgress } from "./hub/download-hub-file.js";
export { parseHubSource } from "./hub/hub-source.js";
export { type AddedToken, addedTokensOf, isWhitespaceToken } from "./model/added-tokens.js";
export { type LoadModelOptions, loadModel } from "./model/load-model.js";
export {
  MODEL_FILES,
  type ModelSource,
  type ResolveOptions,
  resolveModelDir,
  resolveModelSource,
} from "./model/resolve-source.js";
export type { BatchSettings } from "./model/run-settings.js";
export { loadTokenizer, scorePosition, type VerifierTokenizer } from "./model/tokenizer.js";
export { type PrefixReuseStats, VerifierModel } from "./model/verifier-model.js";
export {
  createPairwiseScorer,
  PAIRWISE_CRITERION,
  type PairwiseDetail,
} from "./scorer/create-pairwise-scorer.js";
export { createVerifierScorer } from "./scorer/create-verifier-scorer.js";
export { type ModelCache, modelCache } from "./scorer/model-cache.js";
export { type PairwiseArgs, PairwiseArgsSchema } from "./scorer/pairwise-args.js";
export { definePairwiseScorer } from "./scorer/pairwise-definition.js";
export {
  type VerifierArgs,
  type VerifierArgsInput,
  VerifierArgsSchema,
} from "./scorer/verifier-args.js";
export {
  defineVerifierScorer,
  defineVerifierScorers,
  type VerifierScorerOptions,
  verifierScorer,
} from "./scorer/verifier-definition.js";
export type {
  CriterionResult,
  VariantResult,
  VerifierDetail,
  VerifierUsage,
} from "./scorer/verifier-detail.js";
export {
  createSession,
  type ExecutionDevice,
  parseDevice,
  type SessionOptions,
} from "./session/create-session.js";
export { ModelRunner } from "./session/model-runner.js";
export { type PromptPiece, plainText, resolvePrompt } from "./template/resolve-prompt.js";
export {
  chooseTokenBreak,
  guardedSpellings,
  TOKEN_BREAKS,
  TokenGuard,
} from "./template/token-guard.js";
export {
  DELIMITER_BREAK,
  templateDelimiters,
  type UntrustedFilter,
  untrustedFilter,
  untrustedSanitizer,
} from "./template/untrusted-text.js";
