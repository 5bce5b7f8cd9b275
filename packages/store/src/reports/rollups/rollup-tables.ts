/** The tables a completed run's rollups are written into, one row set per run. */
export const ROLLUP_TABLES = [
  "run_rollups",
  "unscored_rollups",
  "histogram_rollups",
  "pass_rollups",
  "usage_rollups",
  "summary_rollups",
  "early_stop_rollups",
  "early_stop_candidate_rollups",
] as const;
