import { type RunReport, type RunTrendPoint, rateOf, type ScorerMean } from "@assay/core";
import { trendPoint } from "./trend-point.js";

const identity = (runId: string, startedAt: string) => ({
  runId,
  name: "plain",
  dataset: "questions.jsonl",
  startedAt,
  finishedAt: startedAt,
});

const EXACT: ScorerMean = {
  scorer: "exact",
  scored: 8,
  mean: 0.625,
  low: 0.306,
  high: 0.863,
  passes: 5,
};
const JUDGE: ScorerMean = {
  scorer: "judge",
  scored: 8,
  mean: 0.734,
  low: 0.61,
  high: 0.858,
  passes: null,
};

/**
 * Eight inputs scored by an exact-match scorer and a verifier, with no selection: every
 * verifier prompt was cut to fit, nothing unscored, no prices.
 */
export const PLAIN: RunReport = {
  run: identity("plain-2", "2026-11-02T00:00:00.000Z"),
  samples: 8,
  tasks: 8,
  accuracy: {
    tasks: 0,
    selectedTasks: 0,
    unselected: 0,
    methods: [],
    pass1: rateOf(0, 0),
    selected: rateOf(0, 0),
    oracle: rateOf(0, 0),
  },
  ties: { continuous: rateOf(0, 0), discrete: rateOf(0, 0) },
  cost: null,
  truncation: {
    overall: rateOf(8, 8),
    refused: rateOf(0, 8),
    byInputLength: [{ fromTokens: 4096, toTokens: 8192, truncation: rateOf(8, 8), refused: 0 }],
  },
  unscored: { results: 16, unscored: rateOf(0, 16), byReason: [] },
  histograms: [
    { scorer: "exact", counts: [3, 0, 0, 0, 0, 0, 0, 0, 0, 5], scored: 8 },
    { scorer: "judge", counts: [0, 0, 0, 0, 0, 1, 2, 3, 1, 1], scored: 8 },
  ],
  scorerMeans: [EXACT, JUDGE],
};

/** The run before it, in the same series: lower on both scorers. */
export const PLAIN_BEFORE: RunReport = {
  ...PLAIN,
  run: identity("plain-1", "2026-11-01T00:00:00.000Z"),
  scorerMeans: [
    { ...EXACT, mean: 0.375, low: 0.137, high: 0.694, passes: 3 },
    { ...JUDGE, mean: 0.65, low: 0.52, high: 0.78 },
  ],
};

export const PLAIN_TREND: RunTrendPoint[] = [trendPoint(PLAIN_BEFORE), trendPoint(PLAIN)];
