import type { ScorerCalibration } from "@assay/core";
import { escapeHtml } from "./escape-html.js";

const SIZE = 260;
const PAD = { top: 12, right: 12, bottom: 36, left: 40 };

/** "judge" for the stored value, "judge / correctness" for one of its criteria. */
export function calibrationName(c: ScorerCalibration): string {
  return c.criterion === "" ? c.scorer : `${c.scorer} / ${c.criterion}`;
}

/**
 * A reliability diagram: one dot per non-empty bin at (mean score, share labelled true),
 * its area growing with the bin's count, against the diagonal a calibrated scorer sits
 * on. Each dot carries `data-bin`, `data-mean`, `data-rate` and `data-count`.
 */
export function reliabilityDiagram(c: ScorerCalibration): string {
  const name = calibrationName(c);
  const plot = SIZE - PAD.left - PAD.right;
  const x = (v: number) => (PAD.left + v * plot).toFixed(1);
  const y = (v: number) => (PAD.top + (1 - v) * plot).toFixed(1);
  const largest = Math.max(1, ...c.summary.bins.map((b) => b.count));
  const dots = c.summary.bins.flatMap((bin, i) => {
    if (bin.meanScore === null || bin.positiveRate === null) return [];
    const r = 3 + 7 * Math.sqrt(bin.count / largest);
    const text = `${bin.lower.toFixed(1)}–${bin.upper.toFixed(1)}: mean score ${bin.meanScore.toFixed(3)}, ${(bin.positiveRate * 100).toFixed(1)}% true, ${bin.count} answers`;
    return [
      `<circle class="bin" data-bin="${i}" data-mean="${bin.meanScore}" data-rate="${bin.positiveRate}" data-count="${bin.count}" cx="${x(bin.meanScore)}" cy="${y(bin.positiveRate)}" r="${r.toFixed(1)}" fill="#2f6fdf" fill-opacity="0.7"><title>${escapeHtml(text)}</title></circle>`,
    ];
  });
  const ticks = [0, 0.5, 1].map(
    (t) =>
      `<text class="category" x="${x(t)}" y="${PAD.top + plot + 14}" text-anchor="middle">${t}</text><text class="category" x="${PAD.left - 6}" y="${y(t)}" text-anchor="end" dominant-baseline="middle">${t}</text>`,
  );
  const title = `Reliability: ${name}`;
  return `<figure class="chart" data-chart="reliability-${escapeHtml(name)}">
<figcaption>${escapeHtml(title)}<small>${escapeHtml(figuresLine(c))}. Dots on the diagonal: scores that mean what they say.</small></figcaption>
<svg viewBox="0 0 ${SIZE} ${SIZE}" width="${SIZE}" height="${SIZE}" role="img" aria-label="${escapeHtml(title)}">
<rect x="${PAD.left}" y="${PAD.top}" width="${plot}" height="${plot}" fill="none" stroke="#ccc"/>
<line class="diagonal" x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>
${dots.join("\n")}
${ticks.join("\n")}
<text class="category" x="${x(0.5)}" y="${SIZE - 6}" text-anchor="middle">mean score</text>
<text class="category" x="10" y="${y(0.5)}" text-anchor="middle" transform="rotate(-90 10 ${y(0.5)})">share true</text>
</svg>
</figure>`;
}

function figuresLine(c: ScorerCalibration): string {
  const f = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));
  const s = c.summary;
  return `${s.count} labelled answers (${s.positives} true): AUROC ${f(s.auroc)}, Brier ${f(s.brier)}, ECE ${f(s.ece)}`;
}

/** The figures per scorer and criterion and a diagram each; empty when the run has no labelled verifier scores. */
export function calibrationSection(calibration: readonly ScorerCalibration[] | undefined): string {
  if (calibration === undefined || calibration.length === 0) return "";
  const f = (v: number | null) => (v === null ? "n/a" : v.toFixed(3));
  const rows = calibration.map(
    (c) =>
      `<tr><th>${escapeHtml(calibrationName(c))}</th><td>${c.summary.count}</td><td>${f(c.summary.auroc)}</td><td>${f(c.summary.accuracy)}</td><td>${f(c.summary.brier)}</td><td>${f(c.summary.ece)}</td></tr>`,
  );
  return `<section class="calibration"><h2>Calibration against labels</h2><table data-table="calibration">
<thead><tr><th>scorer</th><th>answers</th><th>AUROC</th><th>accuracy@0.5</th><th>Brier</th><th>ECE (10 bins)</th></tr></thead>
<tbody>${rows.join("")}</tbody></table>
<div class="charts">${calibration.map(reliabilityDiagram).join("\n")}</div></section>`;
}
