import type { Rate, RunReport } from "@assay/core";
import { formatCount, formatRate } from "../format.js";
import { escapeHtml } from "./escape-html.js";

const rate = (r: Rate) => `${formatRate(r.rate)} <small>(${r.count}/${r.of})</small>`;
const figure = (v: number | null | undefined) => (v == null ? "n/a" : v.toFixed(1));

/** Pointwise against pairwise selected accuracy and the judge's position bias. */
export function pairwiseSection(report: RunReport): string {
  const p = report.pairwise;
  if (p === null || p === undefined) return "";
  return `<section class="pairwise"><h2>Pointwise vs pairwise selection</h2>
<p>Over ${p.tasks} tasks ranked by the pairwise judge: best-of-N on the pointwise verifier score beside the judged pivot tournament, and the share of pairs whose preferred answer changed when the two answers swapped places.</p>
<table data-table="pairwise">
<tbody><tr data-row="pointwise"><th>pointwise (best-of-N)</th><td>${rate(p.pointwiseSelected)}</td></tr>
<tr data-row="pairwise"><th>pairwise (judged tournament)</th><td>${rate(p.pairwiseSelected)}</td></tr>
<tr data-row="position-bias"><th>position bias</th><td>${rate(p.positionBias)}</td></tr></tbody></table></section>`;
}

/** Verifier tokens, prompts and forward passes per solved task, by scorer, and the cached share. */
export function verifierEffortSection(report: RunReport): string {
  const e = report.verifierEffort;
  if (e === undefined || e.byScorer.length === 0) return "";
  const rows = e.byScorer.map(
    (r) =>
      `<tr data-scorer="${escapeHtml(r.scorer)}"><th>${escapeHtml(r.scorer)}</th><td>${r.inputTokens}</td><td>${r.cachedInputTokens}</td><td data-figure="prompts">${formatCount(r.prompts)}</td><td data-figure="forward-passes">${formatCount(r.forwardPasses)}</td></tr>`,
  );
  return `<section class="verifier-effort"><h2>Verifier compute</h2>
<table data-table="verifier-effort">
<thead><tr><th>scorer</th><th>input tokens</th><th>cached tokens</th><th>prompts</th><th>forward passes</th></tr></thead>
<tbody>${rows.join("")}</tbody></table>
<p>${e.solvedTasks} solved tasks: <span data-figure="tokens-per-solved">${figure(e.tokensPerSolvedTask)}</span> verifier tokens, <span data-figure="prompts-per-solved">${figure(e.promptsPerSolvedTask)}</span> prompts scored and <span data-figure="passes-per-solved">${figure(e.forwardPassesPerSolvedTask)}</span> forward passes per solved task; cached share of verifier input tokens <span data-figure="cached-share">${rate(e.cachedShare)}</span>.</p>
<p>A prompt is one criterion × variant for the answer or a trajectory prefix. A forward pass is split evenly over the rows it carried, so passes shared with other jobs count once in all and a scorer's passes may be fractional; they depend on batching, prompts do not.</p></section>`;
}
