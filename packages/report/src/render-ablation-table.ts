import type { SelectionAblation } from "@assay/core";
import Table from "cli-table3";
import {
  ablationJudgeNote,
  ablationMethod,
  ablationRateCell,
  ablationRowLabel,
  ablationSelectedHeading,
  pointsAgainstFull,
  shapeOf,
} from "./ablation-rows.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/** Selected accuracy by criterion alone and by the first k variants, next to the full mean. */
export function ablationTable(ablation: SelectionAblation): string {
  const full = ablation.rows.find((row) => row.kind === "full");
  const table = new Table({
    head: [
      "scores averaged",
      ablationSelectedHeading(ablation),
      "vs the run",
      "no scored candidate",
      "top ties",
    ],
    ...STYLE,
  });
  for (const row of ablation.rows) {
    table.push([
      ablationRowLabel(row, ablation),
      ablationRateCell(row.selected),
      pointsAgainstFull(row, full),
      row.unselected,
      row.ties,
    ]);
  }
  const title = `Selection ablation (${ablation.scorer}, ${ablationMethod(ablation)}; ${shapeOf(ablation)}), re-selected from stored values`;
  const note = ablationJudgeNote(ablation);
  return [title, ...(note === undefined ? [] : [note]), table.toString()].join("\n");
}
