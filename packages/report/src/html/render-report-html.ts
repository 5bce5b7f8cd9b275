import type { ReportBundle, RunReport } from "@assay/core";
import { DEFINITIONS_LINE, formatMoney } from "../format.js";
import { pricingLines } from "../pricing-lines.js";
import { ablationSection } from "./ablation-section.js";
import { SVG_DEFS } from "./bar-chart.js";
import { comparisonSection } from "./comparison-section.js";
import { costByModelSection } from "./cost-by-model-section.js";
import { earlyStopsSection } from "./early-stops-section.js";
import { escapeHtml } from "./escape-html.js";
import { absentLine, headlineCards } from "./headline.js";
import { pairwiseSection, verifierEffortSection } from "./pairwise-section.js";
import { calibrationSection } from "./reliability-diagram.js";
import {
  accuracyChart,
  costTrendChart,
  histogramCharts,
  scorerMeansChart,
  truncationChart,
  unscoredChart,
} from "./report-charts.js";
import { REPORT_CSS } from "./report-css.js";
import { runColors } from "./run-colors.js";
import { selfPreferenceSection } from "./self-preference-section.js";
import { slicesSection } from "./slices-section.js";

/**
 * The run report as one self-contained HTML file: inline CSS and SVG, no script, no
 * network. Headline numbers first, then the charts that explain them.
 */
export function renderReportHtml(bundle: ReportBundle): string {
  const { report } = bundle;
  const title = `Assay report: ${report.run.runId}`;
  const color = runColors(bundle);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${SVG_DEFS}
<header>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(runLine(report))}</p>
${bundle.compare === null ? "" : `<p>Compared with <strong>${escapeHtml(bundle.compare.run.runId)}</strong>.</p>`}
</header>
${headlineCards(report)}
${absentLine(report)}
${warnings(report)}
${bundle.comparison === undefined ? "" : comparisonSection(bundle.comparison)}
${bundle.slices === undefined ? "" : slicesSection(bundle.slices)}
${ablationSection(bundle.ablation)}
<section class="charts">
${accuracyChart(bundle, color)}
${scorerMeansChart(bundle, color)}
${costTrendChart(bundle, color)}
${truncationChart(report, color)}
${unscoredChart(report, color)}
${histogramCharts(report, color).join("\n")}
</section>
${pairwiseSection(report)}
${verifierEffortSection(report)}
${calibrationSection(report.calibration)}
${selfPreferenceSection(report.selfPreference)}
${bundle.earlyStops === undefined ? "" : earlyStopsSection(bundle.earlyStops)}
${costTable(report)}
${costByModelSection(report)}
<footer><p>${escapeHtml(DEFINITIONS_LINE)}</p></footer>
</body>
</html>
`;
}

function runLine(report: RunReport): string {
  const { run } = report;
  const parts = [
    run.name === null ? null : `series ${run.name}`,
    run.dataset === null ? null : `dataset ${run.dataset}`,
    `started ${run.startedAt}`,
    run.abandonedAt != null
      ? `abandoned ${run.abandonedAt}`
      : run.finishedAt === null
        ? "unfinished"
        : `finished ${run.finishedAt}`,
    `${report.tasks} tasks, ${report.samples} samples`,
    report.accuracy.methods.length === 0
      ? "no selection stored yet"
      : `selection: ${report.accuracy.methods.join(", ")}`,
  ];
  return parts.filter((p) => p !== null).join(" · ");
}

function warnings(report: RunReport): string {
  const lines = report.cost?.warnings ?? [];
  if (lines.length === 0) return "";
  return `<section class="warnings"><h2>Cost warnings</h2><ul>${lines.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul></section>`;
}

function costTable(report: RunReport): string {
  const cost = report.cost;
  if (cost === null) return "";
  const money = (v: number | null) => escapeHtml(formatMoney(v, cost.currency));
  // Without selection, solved tasks come from the pass rule; a report without them has no row.
  const perSolved =
    report.accuracy.methods.length === 0 && report.solved === undefined
      ? ""
      : `<tr><th>per solved task (${cost.solvedTasks})</th><td>${money(cost.perSolvedTask.generation)}</td><td>${money(cost.perSolvedTask.verification)}</td><td>${money(cost.perSolvedTask.total)}</td></tr>`;
  return `<section class="cost"><h2>Cost</h2><table data-table="cost">
<thead><tr><th></th><th>generation</th><th>verification</th><th>total</th></tr></thead>
<tbody>
<tr><th>run</th><td>${money(cost.generation)}</td><td>${money(cost.verification)}</td><td>${money(cost.total)}</td></tr>
${perSolved}
<tr><th>per sample (${cost.samples})</th><td></td><td></td><td>${money(cost.perSample)}</td></tr>
</tbody></table>${pricingList(report)}</section>`;
}

/** What each model was priced on, and the note on measured time when any used it. */
function pricingList(report: RunReport): string {
  const { lines, note } = pricingLines(report);
  if (lines.length === 0) return "";
  const items = lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("");
  const measured = note === null ? "" : `<p data-note="measured-time">${escapeHtml(note)}</p>`;
  return `<h3>Priced by</h3><ul data-list="pricing">${items}</ul>${measured}`;
}
