import { type GroupMean, SELF_PREFERENCE_THRESHOLD, type SelfPreference } from "@assay/core";
import { escapeHtml } from "./escape-html.js";

/** Mean verifier score by generator family and correctness, the gap, and a warning above it. */
export function selfPreferenceSection(checks: readonly SelfPreference[] | undefined): string {
  if (checks === undefined || checks.length === 0) return "";
  const mean = (g: GroupMean) =>
    g.mean === null ? "n/a" : `${g.mean.toFixed(3)} <small>(${g.answers})</small>`;
  const rows = checks.map((c) => {
    const gap = c.gap === null ? "n/a" : c.gap.toFixed(3);
    const name = escapeHtml(c.scorer);
    const family = escapeHtml(c.family);
    return `<tr data-scorer="${name}" data-gap="${c.gap ?? ""}" data-warning="${c.warning}"><th>${name}</th><td>${family}</td><td>${mean(c.sameFamily.correct)}</td><td>${mean(c.otherFamily.correct)}</td><td>${mean(c.sameFamily.incorrect)}</td><td>${mean(c.otherFamily.incorrect)}</td><td>${c.warning ? `<strong>${gap}</strong>` : gap}</td></tr>`;
  });
  const warned = checks.filter((c) => c.warning);
  const warnings =
    warned.length === 0
      ? ""
      : `<ul class="warnings">${warned.map((c) => `<li>${escapeHtml(`${c.scorer} scores ${c.family} answers ${c.gap?.toFixed(3)} higher than other generators' at equal correctness (threshold ${SELF_PREFERENCE_THRESHOLD})`)}</li>`).join("")}</ul>`;
  return `<section class="self-preference"><h2>Self-preference</h2>
<p>Mean verifier score on labelled answers, by whether the generator's model name contains the verifier's family. The gap is the mean over correct and incorrect answers of same family − others.</p>
<table data-table="self-preference">
<thead><tr><th>scorer</th><th>family</th><th>correct: same family</th><th>correct: others</th><th>incorrect: same family</th><th>incorrect: others</th><th>gap</th></tr></thead>
<tbody>${rows.join("")}</tbody></table>${warnings}</section>`;
}
