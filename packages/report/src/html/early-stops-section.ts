import type { EarlyStopCandidate, EarlyStopReport } from "@assay/core";
import {
  EARLY_STOPS_SHOWN,
  fallDigits,
  fallRule,
  formatCurve,
  formatFall,
  formatFinal,
} from "../format.js";
import { escapeHtml } from "./escape-html.js";

const WIDTH = 120;
const HEIGHT = 28;

/** The first early-stop candidates, each with a sparkline of its whole progress curve. */
export function earlyStopsSection(stops: EarlyStopReport): string {
  const shown = stops.candidates.slice(0, EARLY_STOPS_SHOWN);
  const more = stops.total - shown.length;
  const items = shown.map(
    (
      c,
    ) => `<li data-sample="${escapeHtml(c.sampleId)}" data-from-step="${c.fromStep}" data-falls="${c.falls}">
${sparkline(c)} <code>${escapeHtml(c.sampleId)}</code> (task ${escapeHtml(c.taskId)}, ${escapeHtml(c.scorer)}): stop after step ${c.fromStep + 1}, then ${escapeHtml(formatFall(c.values))}; whole curve ${escapeHtml(formatCurve(c))}, final ${escapeHtml(formatFinal(c))}</li>`,
  );
  return `<section class="early-stops" data-section="early-stops">
<h2>Early-stop candidates: ${stops.total}</h2>
<p>Trajectories whose verifier value ${escapeHtml(fallRule(stops))}; stopping where the fall began would have kept the better answer.${more > 0 ? ` The first ${shown.length} are shown; JSON lists more.` : ""}</p>
${items.length === 0 ? "<p>None.</p>" : `<ol>\n${items.join("\n")}\n</ol>`}
</section>`;
}

/**
 * The curve on a 0–1 scale, the fall drawn over it in red. An unscored step (null) leaves
 * a gap rather than a line through a value that does not exist.
 */
function sparkline(c: EarlyStopCandidate): string {
  const step = WIDTH / Math.max(1, c.progress.length - 1);
  const point = (v: number, i: number) =>
    `${(i * step).toFixed(1)},${(HEIGHT - v * HEIGHT).toFixed(1)}`;
  const runs: string[][] = [[]];
  c.progress.forEach((v, i) => {
    if (v === null) runs.push([]);
    else runs.at(-1)?.push(point(v, i));
  });
  const lines = runs
    .filter((r) => r.length > 0)
    .map((r) => `<polyline class="curve" points="${r.join(" ")}"/>`);
  const fall = c.values.map((v, i) => point(v, c.fromStep + i)).join(" ");
  const digits = fallDigits(c.values);
  const label = c.progress.map((v) => (v === null ? "–" : v.toFixed(digits))).join(", ");
  return `<svg class="sparkline" viewBox="-2 -2 ${WIDTH + 4} ${HEIGHT + 4}" width="${WIDTH + 4}" height="${HEIGHT + 4}" role="img" aria-label="progress ${escapeHtml(label)}">
${lines.join("")}<polyline class="fall" points="${fall}"/></svg>`;
}
