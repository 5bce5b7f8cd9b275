import type { AnswerJoinCounts } from "../answer-join.js";
import type { UsageCost } from "../cost/usage-cost.js";
import type { CalibrationSummary } from "../stats/calibration.js";
import type { RunComparison } from "./comparison.js";
import type { EarlyStopReport } from "./early-stop.js";
import type { PairwiseReport, VerifierEffortReport } from "./pairwise-report.js";
import type { Rate } from "./rate.js";
import type { ScorerMean } from "./scorer-mean.js";
import type { SelectionAblation } from "./selection-ablation.js";
import type { SelfPreference } from "./self-preference.js";
import type { SliceReport } from "./slices.js";

// What each figure counts, its denominator and its interval: docs/figures.md, the one place
// the report, these JSON fields and docs/cli.md are defined by.

export interface RunIdentity {
  runId: string;
  name: string | null;
  dataset: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** When `assay abandon` gave the run up; absent or null for a run not abandoned. */
  abandonedAt?: string | null;
}

/**
 * pass@1 vs verifier-selected vs oracle. All three count the same tasks: those whose
 * correctness is known for the first candidate, the pick and the oracle. A task with no
 * scored candidate is among them, unsolved for the selected figure.
 */
export interface AccuracyReport {
  tasks: number;
  /** Tasks where selection picked a candidate; 0 until selection ran. */
  selectedTasks: number;
  /**
   * Tasks with no scored candidate (none scored by the verifier, and under a judged
   * tournament no pair judged), so nothing was picked (counted unsolved).
   */
  unselected: number;
  /** Selection method(s) stored for the run. */
  methods: string[];
  pass1: Rate;
  selected: Rate;
  oracle: Rate;
}

/** Ties at the top of a pick, over tasks where selection picked a candidate. */
export interface TieReport {
  /** The method's own value (score or strength) of the top two was exactly equal. */
  continuous: Rate;
  /**
   * A discrete judge (argmax level) would have tied at the top; over the tasks with a pick
   * whose scored candidates all carry distributions (a probe head has none).
   */
  discrete: Rate;
}

export interface CostReport extends UsageCost {
  /** Tasks whose selected candidate is correct. */
  solvedTasks: number;
  samples: number;
  perSolvedTask: { generation: number | null; verification: number | null; total: number | null };
  perSample: number | null;
}

export interface TruncationBucket {
  /** Prompt tokens before fitting, [fromTokens, toTokens). */
  fromTokens: number;
  /** Null for the last, open-ended bucket. */
  toTokens: number | null;
  /** Calls of the bucket whose prompt was cut to fit, over the bucket's calls. */
  truncation: Rate;
  /** Calls of the bucket refused because their required pieces did not fit (not cut). */
  refused: number;
}

/**
 * Verifier model calls (one per prompt) by what fitting did to them: cut to fit (a piece
 * shortened or dropped, the call made) or refused (the answer or a required piece did not
 * fit: no call, the result unscored). A refused call is not a cut one: each is counted apart.
 */
export interface TruncationReport {
  /** Calls whose prompt was cut to fit, over every call. */
  overall: Rate;
  /** Calls refused, over every call. */
  refused: Rate;
  byInputLength: TruncationBucket[];
}

export interface UnscoredReasonCount {
  reason: string;
  count: number;
}

export interface UnscoredReport {
  results: number;
  unscored: Rate;
  byReason: UnscoredReasonCount[];
}

export interface ScoreHistogram {
  scorer: string;
  /** Bin i covers [i/bins, (i+1)/bins); 1.0 falls in the last bin. */
  counts: number[];
  scored: number;
}

/**
 * How one verifier scorer's scores line up with the answers' labels: AUROC, accuracy at
 * 0.5, Brier score, expected calibration error and the reliability bins, over its scored
 * results on labelled answers. One for the scorer's stored value; when its detail holds
 * C > 1 criteria, one more per criterion, whose value for an answer is the mean of that
 * criterion's K variant values (as the verifier computes it); an answer where that mean is
 * unknown or outside [0, 1] is left out of the criterion's figures.
 */
export interface ScorerCalibration {
  scorer: string;
  /** "" for the scorer's stored value; else the criterion's name in `detail.criteria`. */
  criterion: string;
  summary: CalibrationSummary;
}

/**
 * One scorer's results under the run's pass rule (`value >= threshold`, the spec's `pass`
 * section, docs/figures.md "Pass and solved"): unscored results never pass.
 */
export interface ScorerPass {
  scorer: string;
  /** The rule as text, e.g. `value >= 0.5`. */
  rule: string;
  threshold: number;
  scored: number;
  unscored: number;
  /** Scored results that pass, over scored results. */
  passed: Rate;
}

/**
 * Tasks solved, for every run: with selection, tasks whose pick is correct (the selected
 * figure's count); without, tasks whose first candidate passes the deciding rule
 * (`pass.solved_by`'s result, else every result of that candidate). Cost per solved task
 * divides by `solved`.
 */
export interface SolvedReport {
  decidedBy: "selection" | "pass_rule";
  tasks: number;
  solved: number;
}

/** Everything `assay report` shows for one run. */
export interface RunReport {
  run: RunIdentity;
  samples: number;
  tasks: number;
  accuracy: AccuracyReport;
  ties: TieReport;
  /** Null when no price table was given. */
  cost: CostReport | null;
  truncation: TruncationReport;
  unscored: UnscoredReport;
  histograms: ScoreHistogram[];
  /**
   * Each scorer's mean (a pass rate when it scores 0 or 1) over its scored results, with
   * its 95% interval, by scorer name: the headline figures of a run without selection.
   */
  scorerMeans: ScorerMean[];
  /**
   * Verifier scores against labels, where the run has labelled answers; empty when it has
   * none; absent from reports built before calibration was measured.
   */
  calibration?: ScorerCalibration[];
  /**
   * Verifiers whose assay.json names a `family`, on labelled answers with a known generator
   * model: their scores on that family's answers against other generators'.
   */
  selfPreference?: SelfPreference[];
  /** Pointwise against pairwise selection and the judge's position bias; null without a judge. */
  pairwise?: PairwiseReport | null;
  /** Verifier tokens and forward passes per solved task, and the cached share of its input. */
  verifierEffort?: VerifierEffortReport;
  /** Each scorer's passes under the run's stored pass rule; absent from older reports. */
  scorerPasses?: ScorerPass[];
  /** Solved tasks under one definition for every run; absent from older reports. */
  solved?: SolvedReport;
}

/** One run's headline numbers, for trends across runs. */
export interface RunTrendPoint {
  run: RunIdentity;
  /**
   * A trend reads rollups only: a run without them (still running, or abandoned) is shown
   * as such, with every figure null.
   */
  state: "completed" | "unfinished" | "abandoned";
  pass1: number | null;
  selected: number | null;
  oracle: number | null;
  tieRate: number | null;
  truncationRate: number | null;
  unscoredRate: number | null;
  costPerSolvedTask: number | null;
  /** The run's mean per scorer, as its report gives them. */
  scorerMeans: ScorerMean[];
}

/** The report as `assay report` builds it: the run, an optional comparison, the trend. */
export interface ReportBundle {
  report: RunReport;
  compare: RunReport | null;
  trend: RunTrendPoint[];
  /** Trajectories of the reported run that fell M steps in a row; absent when not queried. */
  earlyStops?: EarlyStopReport;
  /** Paired differences against `compare` with bootstrap intervals; absent without one. */
  comparison?: RunComparison;
  /** The headline figures by one metadata field (`--by`); absent when not asked for. */
  slices?: SliceReport;
  /**
   * Selected accuracy by criterion alone and by the first 1..K variants; absent when the
   * run has no selection or its verifier used one criterion and one variant.
   */
  ablation?: SelectionAblation;
  /** What joining the run's answers from batch outputs came to; absent when not joined. */
  answers?: AnswerJoinCounts;
}
