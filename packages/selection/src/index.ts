export { discreteScoreOf, distributionsIn } from "@assay/core";
export {
  AblationTally,
  type AblationTaskCandidate,
  type AblationTaskJudgments,
} from "./ablation/ablation-tally.js";
export {
  type AblationView,
  ablationViews,
  type ValueShape,
  viewScore,
} from "./ablation/ablation-views.js";
export {
  type AblationCandidate,
  type PickOptions,
  type TaskOutcome,
  taskOutcome,
} from "./ablation/pick-candidate.js";
export { type Accuracy, type AccuracyInput, accuracyOf } from "./accuracy.js";
export { type BestOfN, bestOfN } from "./best-of-n.js";
export {
  type BradleyTerryFit,
  type BradleyTerryOptions,
  fitBradleyTerry,
  type PairProbability,
} from "./bradley-terry.js";
export { type Candidate, isScored, type ScoredCandidate } from "./candidate.js";
export { candidateIndices } from "./candidate-indices.js";
export { type CorrectnessInput, DEFAULT_CORRECT_THRESHOLD, isCorrect } from "./correctness.js";
export {
  type DecidingRanking,
  decidingRanking,
  type PickReason,
  type TaskRanking,
} from "./deciding-ranking.js";
export { type PairPlanOptions, type PairPrompt, pairPrompts } from "./pair-jobs.js";
export {
  type CombinedJudgments,
  combineOrders,
  type JudgedPair,
  type PairJudgment,
} from "./pair-judgments.js";
export {
  type PairwiseEvidence,
  type PairwiseTournament,
  type PairwiseTournamentOptions,
  pairwiseTournament,
} from "./pairwise-tournament.js";
export { type CandidatePair, choosePivots, pairSampleId, pivotPairs } from "./pivot-pairs.js";
export {
  DEFAULT_PIVOTS,
  type PivotTournament,
  type PivotTournamentOptions,
  pivotComparisonCount,
  pivotTournament,
} from "./pivot-tournament.js";
export { type CompareFn, type Comparison, preferenceProbability } from "./preference.js";
export {
  type SelectionMethod,
  type SelectOptions,
  selectTask,
  type TaskSelection,
} from "./select-task.js";
export {
  candidateOf,
  type SelectTasksOptions,
  selectionRecordOf,
  selectTasks,
} from "./select-tasks.js";
export {
  addSelections,
  emptySelectionTotals,
  type SelectionTotals,
} from "./selection-totals.js";
export { TIE_BREAK, type TieBreak } from "./tie-break.js";
