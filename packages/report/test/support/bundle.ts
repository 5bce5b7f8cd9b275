import { type RunReport, type RunTrendPoint, rateOf, type ScorerMean } from "@assay/core";

const identity = (runId: string, startedAt: string) => ({
  runId,
  name: "nightly <qa>",
  dataset: "tasks.jsonl",
  startedAt,
  finishedAt: startedAt,
});

const JUDGE_MEAN: ScorerMean = {
  scorer: "judge",
  scored: 36,
  mean: 0.612,
  low: 0.55,
  high: 0.674,
  passes: null,
};

/** A hand-made run: the numbers the HTML must show are easy to check by eye. */
export const REPORT: RunReport = {
  run: identity("r2", "2026-11-02T00:00:00.000Z"),
  samples: 40,
  tasks: 10,
  accuracy: {
    tasks: 10,
    selectedTasks: 9,
    unselected: 1,
    methods: ["best_of_n"],
    pass1: rateOf(5, 10),
    selected: rateOf(7, 10),
    oracle: rateOf(9, 10),
  },
  ties: { continuous: rateOf(1, 9), discrete: rateOf(6, 10) },
  cost: {
    generation: 0.28,
    verification: 0.07,
    total: 0.35,
    currency: "USD",
    warnings: [],
    solvedTasks: 7,
    samples: 40,
    perSolvedTask: { generation: 0.04, verification: 0.01, total: 0.05 },
    perSample: 0.00875,
  },
  truncation: {
    overall: rateOf(3, 40),
    refused: rateOf(1, 40),
    byInputLength: [
      { fromTokens: 0, toTokens: 512, truncation: rateOf(0, 20), refused: 0 },
      { fromTokens: 1024, toTokens: 2048, truncation: rateOf(1, 16), refused: 0 },
      { fromTokens: 4096, toTokens: 8192, truncation: rateOf(2, 4), refused: 1 },
    ],
  },
  unscored: {
    results: 80,
    unscored: rateOf(4, 80),
    byReason: [
      { reason: "overflow", count: 3 },
      { reason: "no_score_mass", count: 1 },
    ],
  },
  histograms: [{ scorer: "judge", counts: [1, 0, 2, 3, 4, 5, 6, 7, 4, 4], scored: 36 }],
  scorerMeans: [JUDGE_MEAN],
};

export const COMPARE: RunReport = {
  ...REPORT,
  run: identity("r1", "2026-11-01T00:00:00.000Z"),
  accuracy: {
    ...REPORT.accuracy,
    pass1: rateOf(4, 10),
    selected: rateOf(6, 10),
    oracle: rateOf(9, 10),
  },
};

export const TREND: RunTrendPoint[] = [
  {
    run: COMPARE.run,
    state: "completed",
    pass1: 0.4,
    selected: 0.6,
    oracle: 0.9,
    tieRate: 0.1,
    truncationRate: 0.075,
    unscoredRate: 0.05,
    costPerSolvedTask: 0.06,
    scorerMeans: [JUDGE_MEAN],
  },
  {
    run: identity("r1b", "2026-11-01T12:00:00.000Z"),
    state: "completed",
    pass1: 0.5,
    selected: 0.6,
    oracle: 0.9,
    tieRate: 0.1,
    truncationRate: 0.075,
    unscoredRate: 0.05,
    costPerSolvedTask: null,
    scorerMeans: [{ ...JUDGE_MEAN, mean: 0.6, low: 0.54, high: 0.66 }],
  },
  {
    run: REPORT.run,
    state: "completed",
    pass1: 0.5,
    selected: 0.7,
    oracle: 0.9,
    tieRate: 0.1,
    truncationRate: 0.075,
    unscoredRate: 0.05,
    costPerSolvedTask: 0.05,
    scorerMeans: [JUDGE_MEAN],
  },
];

/** A verifier scorer on 8 labelled answers: two bins off the diagonal, one on it. */
export const CALIBRATION_POINTS = [
  { score: 0.92, label: true },
  { score: 0.95, label: true },
  { score: 0.91, label: false },
  { score: 0.9, label: true },
  { score: 0.55, label: true },
  { score: 0.55, label: false },
  { score: 0.1, label: false },
  { score: 0.12, label: true },
];
