import { perUnit, type RunReport } from "@assay/core";
import { formatMoney } from "../format.js";
import { ownSolved } from "../render-cost-by-model.js";
import { escapeHtml } from "./escape-html.js";

/**
 * The cost by model, as the text report's table has it: each generator model and the
 * verifier, their tokens (cache writes split by lifetime, priced apart), cost, cost per
 * solved task of the run, and a generator model's own solved tasks (its candidate decided
 * them) with its cost per such task. Nothing without prices or usage.
 */
export function costByModelSection(report: RunReport): string {
  const cost = report.cost;
  const models = cost?.byModel ?? [];
  if (cost === null || cost === undefined || models.length === 0) return "";
  const money = (v: number | null) => escapeHtml(formatMoney(v, cost.currency));
  const rows = models.map((m) => {
    const [solved, perOwn] = ownSolved(m, cost.currency);
    const cells = [
      m.inputTokens,
      m.cachedInputTokens,
      m.cacheWriteTokens - (m.cacheWrite1hTokens ?? 0),
      m.cacheWrite1hTokens ?? 0,
      m.outputTokens,
    ].map((n) => `<td>${n}</td>`);
    const compute = m.computeMs === null ? "–" : (m.computeMs / 1000).toFixed(1);
    return `<tr data-role="${escapeHtml(m.role)}" data-model="${escapeHtml(m.model)}"><td>${escapeHtml(m.role)}</td><th>${escapeHtml(m.model)}</th>${cells.join("")}<td>${compute}</td><td>${money(m.cost)}</td><td>${money(perUnit(m.cost, cost.solvedTasks))}</td><td>${escapeHtml(solved)}</td><td>${escapeHtml(perOwn)}</td></tr>`;
  });
  return `<section class="cost-by-model" data-section="cost-by-model"><h2>Cost by model (${cost.solvedTasks} solved tasks)</h2><table data-table="cost-by-model">
<thead><tr><th>role</th><th>model</th><th>input</th><th>cached input</th><th>cache writes 5m</th><th>cache writes 1h</th><th>output</th><th>compute s</th><th>cost</th><th>per solved task</th><th>tasks it solved</th><th>per task it solved</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table></section>`;
}
