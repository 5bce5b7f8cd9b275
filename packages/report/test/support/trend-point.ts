import type { RunReport, RunTrendPoint } from "@assay/core";

/** A run's trend point, as the store builds it from the run's report. */
export function trendPoint(report: RunReport): RunTrendPoint {
  return {
    run: report.run,
    state: "completed",
    pass1: report.accuracy.pass1.rate,
    selected: report.accuracy.selected.rate,
    oracle: report.accuracy.oracle.rate,
    tieRate: report.ties.continuous.rate,
    truncationRate: report.truncation.overall.rate,
    unscoredRate: report.unscored.unscored.rate,
    costPerSolvedTask: report.cost?.perSolvedTask.total ?? null,
    scorerMeans: report.scorerMeans,
  };
}
