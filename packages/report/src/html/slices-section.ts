import type { SliceReport } from "@assay/core";
import { sliceName, sliceRows, slicesAbsentNote } from "../render-slices-table.js";
import { escapeHtml } from "./escape-html.js";

/** The headline figures by one metadata field: a row per figure, a column per value. */
export function slicesSection(report: SliceReport): string {
  const note = slicesAbsentNote(report);
  const head = report.slices
    .map(
      (s) =>
        `<th data-slice="${escapeHtml(sliceName(s.value))}">${escapeHtml(sliceName(s.value))}</th>`,
    )
    .join("");
  const rows = sliceRows(report).map(
    (row) =>
      `<tr data-figure="${escapeHtml(row.id)}"><th>${escapeHtml(row.label)}</th>${report.slices
        .map(
          (s) =>
            `<td data-slice="${escapeHtml(sliceName(s.value))}">${escapeHtml(row.cell(s))}</td>`,
        )
        .join("")}</tr>`,
  );
  return `<section class="slices" data-section="slices">
<h2>By ${escapeHtml(report.by)}${report.fromRawRows === undefined ? "" : ` (from raw rows: ${escapeHtml(report.fromRawRows)})`}</h2>
<p>A sample counts under its own value, a task under its first candidate's; "(none)" holds samples without the field.</p>
${
  report.slices.length === 0
    ? "<p>No samples.</p>"
    : `<table data-table="slices">
<thead><tr><th></th>${head}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>${note === null ? "" : `\n<p class="absent" data-note="slices-absent">${escapeHtml(note)}</p>`}`
}
</section>`;
}
