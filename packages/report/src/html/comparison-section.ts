import type { PairedDifference, RunComparison } from "@assay/core";
import {
  bootstrapNote,
  formatDelta,
  formatFigure,
  formatInterval,
  normalIntervalNote,
  verdictOf,
} from "../format-difference.js";
import { escapeHtml } from "./escape-html.js";

const WIDTH = 160;
const HEIGHT = 16;

/**
 * The paired differences against the compared run, each with its interval drawn around
 * zero: a row whose bar does not cross the zero line is marked as beyond noise.
 */
export function comparisonSection(comparison: RunComparison): string {
  const reach = sharedReach(comparison.differences);
  const rows = comparison.differences.map((d) => {
    const verdict = d.tasks === 0 ? "none" : d.excludesZero ? "real" : "noise";
    return `<tr data-metric="${escapeHtml(d.metric)}" data-kind="${d.kind}" data-tasks="${d.tasks}" data-difference="${d.difference ?? ""}" data-low="${d.low ?? ""}" data-high="${d.high ?? ""}" data-verdict="${verdict}"${d.excludesZero ? ' class="real"' : ""}>
<th>${escapeHtml(d.kind === "scorer" ? `mean ${d.metric}` : d.metric)}</th><td>${d.tasks}</td><td>${escapeHtml(formatFigure(d.kind, d.current))}</td><td>${escapeHtml(formatFigure(d.kind, d.baseline))}</td><td class="delta">${escapeHtml(formatDelta(d.kind, d.difference))}</td><td>${escapeHtml(formatInterval(d))}</td><td>${intervalBar(d, reach)}</td><td class="verdict">${escapeHtml(verdictOf(d))}</td></tr>`;
  });
  const pct = Math.round(comparison.confidence * 100);
  const normal = normalIntervalNote(comparison.differences);
  return `<section class="comparison" data-section="comparison">
<h2>Paired differences: ${escapeHtml(comparison.runId)} minus ${escapeHtml(comparison.baselineRunId)}</h2>
<p>${escapeHtml(bootstrapNote(comparison.confidence, comparison.resamples, comparison.seed))}. Only tasks present in both runs count. A difference whose interval excludes 0 is marked: it is unlikely to be noise.${normal === null ? "" : ` ${escapeHtml(normal)}`}</p>
${
  rows.length === 0
    ? "<p>No figure has tasks in both runs.</p>"
    : `<table data-table="comparison">
<thead><tr><th>figure</th><th>tasks</th><th>${escapeHtml(comparison.runId)}</th><th>${escapeHtml(comparison.baselineRunId)}</th><th>difference</th><th>${pct}% interval</th><th></th><th>verdict</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>`
}
</section>`;
}

/**
 * The half-width of the one scale every row is drawn on: each bar's length is then its
 * interval's width, so a narrow interval reads narrow next to a wide one. (Scaled row by
 * row, every interval would fill its cell whatever its width.)
 */
function sharedReach(differences: readonly PairedDifference[]): number {
  const ends = differences.flatMap((d) => [d.low, d.high, d.difference]);
  return Math.max(0, ...ends.map((v) => Math.abs(v ?? 0))) * 1.15;
}

/** The interval as a bar on the table's scale centred on 0, with the difference as a dot. */
function intervalBar(d: PairedDifference, reach: number): string {
  if (d.low === null || d.high === null || d.difference === null) return "";
  const x = (v: number) =>
    (WIDTH / 2 + (reach === 0 ? 0 : (v / reach) * (WIDTH / 2 - 4))).toFixed(1);
  const mid = HEIGHT / 2;
  return `<svg class="interval" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(`interval ${formatInterval(d)}`)}"><line class="zero" x1="${WIDTH / 2}" x2="${WIDTH / 2}" y1="0" y2="${HEIGHT}"/><line class="range" x1="${x(d.low)}" x2="${x(d.high)}" y1="${mid}" y2="${mid}"/><circle cx="${x(d.difference)}" cy="${mid}" r="3.5"/></svg>`;
}
