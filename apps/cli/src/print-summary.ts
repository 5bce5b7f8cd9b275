import type { RunSummary } from "@assay/core";
import { renderSummaryJson, renderSummaryTable } from "@assay/report/summary";
import type { SelectionTotals } from "@assay/selection";
import { writeOut } from "./output.js";

/** The end-of-run output of `run` and `produce --wait`: summary, then selection accuracy. */
export function printSummary(
  summary: RunSummary,
  selection: SelectionTotals | undefined,
  json: boolean,
): void {
  if (json) {
    const body = JSON.parse(renderSummaryJson(summary)) as Record<string, unknown>;
    writeOut(`${JSON.stringify({ ...body, selection: selection ?? null }, null, 2)}\n`);
    return;
  }
  const lines = [renderSummaryTable(summary)];
  if (selection !== undefined) lines.push("", selectionLine(selection));
  writeOut(`${lines.join("\n")}\n`);
}

function selectionLine(selection: SelectionTotals): string {
  const percent = (rate: { rate: number | null }): string =>
    rate.rate === null ? "n/a" : `${(100 * rate.rate).toFixed(1)}%`;
  return (
    `Selection over ${selection.tasks} tasks: pass@1 ${percent(selection.pass1)}, ` +
    `verifier-selected ${percent(selection.selected)}, oracle ${percent(selection.oracle)}; ` +
    `${selection.ties} ties at the top, ${selection.unselected} tasks with no scored candidate`
  );
}
