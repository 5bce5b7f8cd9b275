import type { GroupMean, SelfPreference } from "@assay/core";
import { intervalText, verdictText } from "../self-preference-text.js";
import { escapeHtml } from "./escape-html.js";

/**
 * Mean verifier score by generator family and correctness (answers in brackets), the gap
 * with its interval, and the warning or why there is none.
 */
export function selfPreferenceSection(checks: readonly SelfPreference[] | undefined): string {
  if (checks === undefined || checks.length === 0) return "";
  const mean = (g: GroupMean) =>
    `${g.mean === null ? "n/a" : g.mean.toFixed(3)} <small>(${g.answers})</small>`;
  const rows = checks.map((c) => {
    const gap = c.gap === null ? "n/a" : c.gap.toFixed(3);
    const name = escapeHtml(c.scorer);
    const family = escapeHtml(c.family);
    const data = `data-scorer="${name}" data-gap="${c.gap ?? ""}" data-low="${c.low ?? ""}" data-high="${c.high ?? ""}" data-enough-answers="${c.enoughAnswers}" data-warning="${c.warning}"`;
    return `<tr ${data}><th>${name}</th><td>${family}</td><td>${mean(c.sameFamily.correct)}</td><td>${mean(c.otherFamily.correct)}</td><td>${mean(c.sameFamily.incorrect)}</td><td>${mean(c.otherFamily.incorrect)}</td><td>${c.warning ? `<strong>${gap}</strong>` : gap}</td><td>${escapeHtml(intervalText(c))}</td><td>${escapeHtml(verdictText(c))}</td></tr>`;
  });
  const warned = checks.filter((c) => c.warning);
  const warnings =
    warned.length === 0
      ? ""
      : `<ul class="warnings">${warned.map((c) => `<li>${escapeHtml(verdictText(c))}</li>`).join("")}</ul>`;
  return `<section class="self-preference"><h2>Self-preference</h2>
<p>Mean verifier score on labelled answers (how many in brackets), by whether the generator's model name contains the verifier's family. The gap is the mean over correct and incorrect answers of same family − others; its interval resamples the answers of each group. A warning needs enough answers in every group, an interval wholly above 0 and a gap above the threshold.</p>
<table data-table="self-preference">
<thead><tr><th>scorer</th><th>family</th><th>correct: same family</th><th>correct: others</th><th>incorrect: same family</th><th>incorrect: others</th><th>gap</th><th>interval</th><th>verdict</th></tr></thead>
<tbody>${rows.join("")}</tbody></table>${warnings}</section>`;
}
