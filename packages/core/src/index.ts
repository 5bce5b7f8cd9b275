export {
  ANSWER_FORMATS,
  type AnswerFormat,
  type AnswerJoinCounts,
  addUnjoined,
  type UnjoinedUsage,
} from "./answer-join.js";
export { parseAnswerLine } from "./answers/answer-line.js";
export type {
  AnswerChoice,
  AnswerLineProblem,
  BatchAnswer,
  FailedOutcome,
} from "./answers/answer-shape.js";
export { repeatChoice } from "./answers/repeat-choice.js";
export { parsePriceTable } from "./cost/parse-price-table.js";
export {
  MEASURED_TIME_NOTE,
  type ModelPricing,
  type PriceBasis,
  priceBasisOf,
  usesMeasuredTime,
} from "./cost/price-basis.js";
export { priceTableWithIdentities } from "./cost/price-identities.js";
export {
  type ModelPrice,
  ModelPriceSchema,
  type PriceTable,
  type PriceTableInput,
  PriceTableSchema,
} from "./cost/price-table.js";
export {
  type CostOptions,
  costOfUsage,
  type ModelCost,
  perUnit,
  type UsageCost,
  type UsageRole,
  type UsageTotals,
} from "./cost/usage-cost.js";
// A dataset line's checks, paths and samples: one list, also a light entry of its own.
export * from "./dataset-line.js";
export { declaredMetadataKeys } from "./declared-metadata.js";
export {
  discreteScoreOf,
  discreteScoreOfDistributions,
  distributionsIn,
} from "./discrete-score.js";
export { type AssayEnv, readEnv } from "./env.js";
export * from "./errors/index.js";
export type { ItemFilter, ParsedPath } from "./field-path.js";
export { type CandidateFields, CandidateFieldsSchema, FieldsSpecSchema } from "./fields-spec.js";
export {
  jobIdOf,
  jobResultKey,
  type Pool,
  resultKeyOfJob,
  type ScoreJob,
  type ScoreRow,
  scoreRowOf,
} from "./job.js";
export type { JobResult, TruncationRow, UsageRow } from "./job-result.js";
export { modelIdentity } from "./model-identity.js";
export { startModuleThread } from "./module-thread.js";
export type { PairedDifference, RunComparison } from "./report/comparison.js";
export type { EarlyStopCandidate, EarlyStopReport } from "./report/early-stop.js";
export type {
  PairwiseReport,
  VerifierEffortReport,
  VerifierEffortRow,
} from "./report/pairwise-report.js";
export { type Rate, rateOf } from "./report/rate.js";
export type {
  AccuracyReport,
  CostReport,
  ReportBundle,
  RunIdentity,
  RunReport,
  RunTrendPoint,
  ScoreHistogram,
  ScorerCalibration,
  ScorerPass,
  SolvedReport,
  TieReport,
  TruncationBucket,
  TruncationReport,
  UnscoredReasonCount,
  UnscoredReport,
} from "./report/run-report.js";
export type {
  DatasetReadBack,
  SampleRecord,
  SampleView,
  ScoreRecord,
  TruncationRecord,
  UsageRecord,
} from "./report/sample-record.js";
export { type ScorerMean, type ScorerMoments, scorerMeanOf } from "./report/scorer-mean.js";
export type {
  AblationKind,
  AblationRow,
  SelectionAblation,
} from "./report/selection-ablation.js";
export {
  type GroupMean,
  SELF_PREFERENCE_MIN_ANSWERS,
  SELF_PREFERENCE_THRESHOLD,
  type SelfPreference,
  type SelfPreferenceCell,
  type SelfPreferenceOptions,
  selfPreference,
} from "./report/self-preference.js";
export type {
  SliceCost,
  SliceFigures,
  SliceReport,
  SliceScorer,
  SliceSolved,
} from "./report/slices.js";
export * from "./requests/index.js";
export {
  RESULT_KEY_FIELDS,
  type ResultKey,
  type ResultKeyField,
  resultKeyText,
} from "./result-key.js";
export {
  DEFAULT_RULE,
  type GeneratorUsageSpec,
  GeneratorUsageSpecSchema,
  type PassSpec,
  PassSpecSchema,
  type RoutingRule,
  RoutingRuleSchema,
  type RunSpec,
  type RunSpecInput,
  RunSpecSchema,
  SAMPLE_RULE,
  type SelectionSpec,
  SelectionSpecSchema,
} from "./run-spec.js";
export {
  type EscapeTerminalOptions,
  escapeTerminal,
  maskSecrets,
  redactUrl,
  shellWord,
} from "./safe-text/index.js";
export {
  DatasetLineSchema,
  type Target,
  TargetSchema,
  type TargetType,
  targetType,
  type Unanswered,
} from "./sample.js";
export {
  createSanitizer,
  DEFAULT_DELIMITERS,
  DEFAULT_REPLACEMENT,
  type Neutralized,
  type SanitizeOptions,
  type Sanitizer,
  sanitizeUntrusted,
} from "./sanitize-untrusted.js";
export {
  type ModelCalls,
  ModelCallsSchema,
  type Score,
  type ScoredScore,
  ScoreSchema,
  scored,
  UNSCORED_REASONS,
  type UnscoredReason,
  type UnscoredScore,
  unscored,
} from "./score.js";
export type { ScoreContext, Scorer, ScorerDefinition } from "./scorer.js";
export { type ScorerRef, type ScorerRefInput, ScorerRefSchema, scorerKey } from "./scorer-ref.js";
export type {
  CandidateQuery,
  CandidateRow,
  CriterionValues,
  SelectionRecord,
  TaskCandidates,
} from "./selection-data.js";
export {
  accuracyAt,
  auroc,
  brierScore,
  type CalibrationSummary,
  calibrationSummary,
  expectedCalibrationError,
  type LabelledScore,
  type ReliabilityBin,
  reliabilityBins,
} from "./stats/calibration.js";
export {
  type CountedDifferences,
  MOMENTS_FROM,
  pairedBootstrapOfCounts,
} from "./stats/counted-differences.js";
export { meanInterval } from "./stats/mean-interval.js";
export {
  type BootstrapOptions,
  DEFAULT_BOOTSTRAP_SEED,
  DEFAULT_CONFIDENCE,
  DEFAULT_RESAMPLES,
  type PairedBootstrap,
  pairedBootstrap,
} from "./stats/paired-bootstrap.js";
export { seededRandom } from "./stats/seeded-random.js";
export { sigmoid } from "./stats/sigmoid.js";
export { stratifiedBootstrap, type WeightedGroup } from "./stats/stratified-bootstrap.js";
export type { ExportRow, InputErrorSummary, RunSummary, ScorerRuleSummary } from "./summary.js";
export { TEXT_PART_CHARS } from "./text-parts.js";
export { type GeneratorUsage, GeneratorUsageSchema } from "./usage.js";
export {
  configValueProblem,
  DUPLICATE_KEY_MESSAGE,
  type ParsedConfig,
  parseJsonConfig,
  parseJsonText,
} from "./validation/config-document.js";

export { MAX_ID_LENGTH, MAX_NESTING_DEPTH, MAX_TOKEN_COUNT } from "./validation/limits.js";
export { recordValidator, validateDatasetRecord } from "./validation/parse-dataset-line.js";
export { parseYamlConfig } from "./validation/yaml-config.js";
export { firstIssue, formatPath } from "./zod-issues.js";
