import { type RunComparison, rateOf, type SliceFigures, type SliceReport } from "@assay/core";

/** r2 minus r1: pass@1 lower beyond noise, selected within noise, a scorer mean higher. */
export const COMPARISON: RunComparison = {
  runId: "r2",
  baselineRunId: "r1",
  resamples: 2000,
  seed: 1,
  confidence: 0.95,
  differences: [
    {
      metric: "pass@1",
      kind: "accuracy",
      tasks: 100,
      current: 0.4,
      baseline: 0.6,
      difference: -0.2,
      low: -0.29,
      high: -0.11,
      excludesZero: true,
    },
    {
      metric: "selected",
      kind: "accuracy",
      tasks: 100,
      current: 0.58,
      baseline: 0.6,
      difference: -0.02,
      low: -0.05,
      high: 0,
      excludesZero: false,
    },
    {
      metric: "judge",
      kind: "scorer",
      tasks: 98,
      current: 0.61,
      baseline: 0.55,
      difference: 0.06,
      low: 0.031,
      high: 0.089,
      excludesZero: true,
    },
    {
      metric: "exact",
      kind: "scorer",
      tasks: 0,
      current: null,
      baseline: null,
      difference: null,
      low: null,
      high: null,
      excludesZero: false,
    },
  ],
};

function slice(value: string | null, overrides: Partial<SliceFigures>): SliceFigures {
  return {
    value,
    tasks: 5,
    samples: 20,
    pass1: rateOf(2, 5),
    selected: rateOf(3, 5),
    oracle: rateOf(4, 5),
    unselected: 0,
    tie: rateOf(0, 5),
    truncation: rateOf(0, 0),
    unscored: rateOf(0, 40),
    scorers: [{ scorer: "judge", results: 20, scored: 20, mean: 0.5 }],
    solved: { decidedBy: "selection", solved: overrides.selected?.count ?? 3 },
    cost: null,
    ...overrides,
  };
}

export const SLICES: SliceReport = {
  by: "metadata.kind",
  slices: [
    slice("open <a>", {
      truncation: rateOf(3, 20),
      cost: {
        currency: "USD",
        total: 0.3,
        solvedTasks: 3,
        perSolvedTask: 0.1,
        perSample: 0.015,
        warnings: [],
      },
    }),
    slice("short", { pass1: rateOf(5, 5), unselected: 1, scorers: [] }),
    slice(null, { tasks: 1, samples: 1, pass1: rateOf(0, 0) }),
  ],
};
