import type { AblationRow, SelectionAblation } from "@assay/core";
import {
  ablationJudgeNote,
  ablationMethod,
  ablationRateCell,
  ablationRowId,
  ablationRowLabel,
  ablationSelectedHeading,
  pointsAgainstFull,
  shapeOf,
} from "../ablation-rows.js";
import { formatRate } from "../format.js";
import { barChart } from "./bar-chart.js";
import { escapeHtml } from "./escape-html.js";

/**
 * Selected accuracy with each criterion alone and with the first 1..K variants, next to
 * the full mean the run selected with: a bar per row on a 0..1 axis, and the table.
 */
export function ablationSection(ablation: SelectionAblation | undefined): string {
  if (ablation === undefined) return "";
  const full = ablation.rows.find((row) => row.kind === "full");
  const heading = ablationSelectedHeading(ablation);
  const judgeNote = ablationJudgeNote(ablation);
  const chart = barChart({
    id: "ablation",
    title:
      ablation.judge === undefined
        ? "Verifier-selected accuracy by what the score averages"
        : `Selected accuracy (judged by ${ablation.judge}) by what the verifier's score averages`,
    note: "The same candidates re-selected from the stored per-criterion, per-variant values; no model was run again.",
    categories: ablation.rows.map(shortLabel),
    series: [{ name: "selected", values: ablation.rows.map((row) => row.selected.rate) }],
    format: (value) => formatRate(value),
    max: 1,
  });
  const rows = ablation.rows.map(
    (row) =>
      `<tr data-row="${escapeHtml(ablationRowId(row))}" data-count="${row.selected.count}" data-of="${row.selected.of}"><th>${escapeHtml(ablationRowLabel(row, ablation))}</th><td>${escapeHtml(ablationRateCell(row.selected))}</td><td>${escapeHtml(pointsAgainstFull(row, full))}</td><td>${row.unselected}</td><td>${row.ties}</td></tr>`,
  );
  return `<section class="ablation" data-section="ablation">
<h2>Selection ablation</h2>
<p>${escapeHtml(`${ablation.scorer} (${ablationMethod(ablation)}, ${shapeOf(ablation)}): each criterion alone and the first k variants, against the mean over all of them.`)}</p>
${judgeNote === undefined ? "" : `<p data-note="judge">${escapeHtml(judgeNote)}</p>\n`}${chart}
<table data-table="ablation">
<thead><tr><th>scores averaged</th><th>${escapeHtml(heading)}</th><th>vs the run</th><th>no scored candidate</th><th>top ties</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
</section>`;
}

/** Short enough to sit under a bar. */
function shortLabel(row: AblationRow): string {
  if (row.kind === "criterion") return row.criterion ?? "";
  if (row.kind === "variants") return `K=${row.variants}`;
  return "all (run)";
}
