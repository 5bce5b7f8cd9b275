export { refreshPlannerStatistics } from "../planner-statistics.js";
export { importPrices, type PriceImport } from "../prices/import-prices.js";
export type { SqlRunner } from "../sql-runner.js";
export { type AblationCandidateRow, ablationCandidatePages } from "./ablation-candidates.js";
export {
  DEFAULT_EARLY_STOP_LIMIT,
  type EarlyStopOptions,
  earlyStops,
} from "./early-stops.js";
export { pairScores } from "./pair-scores.js";
export {
  type PairedDifferences,
  type PairingSource,
  pairedDifferences,
} from "./paired-differences.js";
export { type BundleOptions, reportBundle } from "./report-bundle.js";
export { DEFAULT_FALL_STEPS, DEFAULT_MIN_FALL, metadataPath } from "./report-options.js";
export {
  type BaselinePin,
  listBaselines,
  type PinnedBaseline,
  pinBaseline,
  unpinBaseline,
} from "./rollups/baselines.js";
export { hasRollups, readRollups } from "./rollups/read-rollups.js";
export { dropRollups, writeRollups } from "./rollups/write-rollups.js";
export { runComparison } from "./run-comparison.js";
export { type RunFigures, rawRunFigures, runFigures } from "./run-figures.js";
export { lastRuns, type RunSelector } from "./run-list.js";
export { type ReportOptions, runReports, runTrend, trendPointOf } from "./run-reports.js";
export { runnerOf } from "./runner-of.js";
export { sampleRecord } from "./sample-record.js";
export { HISTOGRAM_BINS } from "./score-stats.js";
export {
  rawSliceRows,
  type SliceOptions,
  type SliceRows,
  sliceReport,
  sliceReportOf,
} from "./slice-report.js";
export { usageTotals } from "./usage-totals.js";
