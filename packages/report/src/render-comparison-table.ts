import type { RunComparison } from "@assay/core";
import Table from "cli-table3";
import {
  bootstrapNote,
  formatDelta,
  formatFigure,
  formatInterval,
  normalIntervalNote,
  verdictOf,
} from "./format-difference.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/** Each figure of both runs over their common tasks, the difference and whether it is noise. */
export function comparisonTable(comparison: RunComparison): string {
  const title =
    `Paired differences: ${comparison.runId} minus ${comparison.baselineRunId} ` +
    `(${bootstrapNote(comparison.confidence, comparison.resamples, comparison.seed)})`;
  if (comparison.differences.length === 0) return `${title}\n  no figure has tasks in both runs`;
  const table = new Table({
    head: [
      "figure",
      "tasks",
      comparison.runId,
      comparison.baselineRunId,
      "difference",
      `${Math.round(comparison.confidence * 100)}% interval`,
      "verdict",
    ],
    colAligns: ["left", "right", "right", "right", "right", "right", "left"],
    ...STYLE,
  });
  for (const d of comparison.differences) {
    table.push([
      d.kind === "scorer" ? `mean ${d.metric}` : d.metric,
      d.tasks,
      formatFigure(d.kind, d.current),
      formatFigure(d.kind, d.baseline),
      formatDelta(d.kind, d.difference),
      formatInterval(d),
      verdictOf(d),
    ]);
  }
  const note =
    "Only tasks present in both runs count; a scorer's value for a task is the mean of its scored results.";
  const normal = normalIntervalNote(comparison.differences);
  return `${title}\n${table.toString()}\n  ${note}${normal === null ? "" : `\n  ${normal}`}`;
}
