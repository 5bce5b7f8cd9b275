import { getTableName } from "drizzle-orm";
import { columnList } from "../../bulk/column-list.js";
import { cacheWrite1hOf, USAGE_AMOUNTS } from "../../bulk/tables.js";
import {
  comparisonRollups,
  earlyStopCandidateRollups,
  earlyStopRollups,
  histogramRollups,
  passRollups,
  runRollups,
  sliceRollups,
  summaryRollups,
  taskRollupChunks,
  unscoredRollups,
  usageRollups,
} from "../../schema.js";

/** The tables a completed run's rollups are written into, one row set per run. */
export const ROLLUP_TABLES = [
  runRollups,
  unscoredRollups,
  histogramRollups,
  passRollups,
  usageRollups,
  summaryRollups,
  earlyStopRollups,
  earlyStopCandidateRollups,
  sliceRollups,
  comparisonRollups,
  // Partitioned by run (migrations 0020, 0025): written by INSERT ... SELECT in the database.
  taskRollupChunks,
].map((table) => getTableName(table));

// The columns each rollup write fills (all but the time it was written), named by the
// schema's property names, which are the field names of the figures they hold.

export const RUN_ROLLUP_COLUMNS = columnList(runRollups, [
  "runId",
  "samples",
  "tasks",
  "results",
  "selectedTasks",
  "unselected",
  "methods",
  "counted",
  "pass1",
  "selected",
  "oracle",
  "ties",
  "discreteTies",
  "discreteOf",
  "truncationCalls",
  "truncationCut",
  "truncationRefused",
  "solved",
  "tasksRolledUp",
  "comparedWith",
  "comparedWithPinned",
]);

export const UNSCORED_ROLLUP_COLUMNS = columnList(unscoredRollups, ["runId", "reason", "count"]);

export const HISTOGRAM_ROLLUP_COLUMNS = columnList(histogramRollups, [
  "runId",
  "scorer",
  "scored",
  "counts",
]);

export const PASS_ROLLUP_COLUMNS = columnList(passRollups, [
  "runId",
  "scorer",
  "scored",
  "unscored",
  "passed",
  "threshold",
]);

export const USAGE_ROLLUP_COLUMNS = columnList(
  usageRollups,
  ["runId", "role", "model", ...USAGE_AMOUNTS, "cacheWrite1hTokens", "rows", "solved"],
  {
    ...cacheWrite1hOf,
    // A verifier's row solves nothing of its own: null, as for runs rolled up before.
    solved: (row: { solved?: number | null }) => row.solved ?? null,
  },
);

export const SUMMARY_ROLLUP_COLUMNS = columnList(summaryRollups, [
  "runId",
  "kind",
  "position",
  "summary",
]);

export const EARLY_STOP_ROLLUP_COLUMNS = columnList(earlyStopRollups, [
  "runId",
  "fallSteps",
  "minFall",
  "total",
]);

export const EARLY_STOP_CANDIDATE_ROLLUP_COLUMNS = columnList(earlyStopCandidateRollups, [
  "runId",
  "position",
  "sampleId",
  "taskId",
  "scorer",
  "fromStep",
  "falls",
  "progress",
]);
