import { describeInputError, type RunSummary } from "@assay/core";
import Table from "cli-table3";
import { routingSplit, totalsByScorer } from "./aggregate.js";
import { answerJoinLine } from "./answer-join-line.js";

const PLAIN = { head: [], border: [] };
// Borders around the table and under the header only: long tables stay easy to scan.
const COMPACT = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };

/**
 * The run summary as plain-text tables for a terminal; `answers: false` leaves out the
 * batch join line, for a report that prints its own (priced) one.
 */
export function renderSummaryTable(
  summary: RunSummary,
  options: { answers?: boolean } = {},
): string {
  const lines = [header(summary), "", scorerTable(summary), "", routingTable(summary)];
  if (summary.answers !== undefined && options.answers !== false) {
    lines.push("", answerJoinLine(summary.answers));
  }
  if (summary.truncation.calls > 0) lines.push("", truncationLine(summary));
  if (summary.truncation.calls > 0 && summary.alteredSamples !== undefined) {
    lines.push("", alteredLine(summary.alteredSamples, summary.samples));
  }
  if (summary.inputErrors > 0) lines.push("", inputErrorLines(summary));
  return lines.join("\n");
}

function header(summary: RunSummary): string {
  const state = summary.finishedAt === null ? "unfinished" : `finished ${summary.finishedAt}`;
  const planned = summary.planned === null ? "?" : String(summary.planned);
  return [
    `Run ${summary.runId}${summary.name === null ? "" : ` (${summary.name})`}: ${state}`,
    `dataset ${summary.dataset ?? "-"}; ${summary.samples} samples; ${summary.results}/${planned} results; ${summary.inputErrors} input errors`,
  ].join("\n");
}

function scorerTable(summary: RunSummary): string {
  const table = new Table({
    head: ["scorer", "results", "scored", "mean", "unscored"],
    colAligns: ["left", "right", "right", "right", "left"],
    style: PLAIN,
    chars: COMPACT,
  });
  for (const row of totalsByScorer(summary)) {
    table.push([
      row.scorer,
      row.results,
      row.scored,
      formatMean(row.mean),
      formatReasons(row.unscored),
    ]);
  }
  return `Scores by scorer\n${table.toString()}`;
}

function routingTable(summary: RunSummary): string {
  const table = new Table({
    head: ["rule", "scorer", "samples", "mean"],
    colAligns: ["left", "left", "right", "right"],
    style: PLAIN,
    chars: COMPACT,
  });
  for (const group of routingSplit(summary)) {
    table.push([group.rule, group.scorer, group.results, formatMean(group.mean)]);
  }
  return `Routing: which rule sent samples to which scorer\n${table.toString()}`;
}

function inputErrorLines(summary: RunSummary): string {
  const shown = summary.inputErrorExamples.map((error) => `  ${describeInputError(error)}`);
  const more = summary.inputErrors - shown.length;
  if (more > 0)
    shown.push(`  ... and ${more} more (see \`assay export\` or the input_errors table)`);
  return [`Input errors (${summary.inputErrors} lines not scored)`, ...shown].join("\n");
}

function truncationLine(summary: RunSummary): string {
  const { calls, truncated, refused } = summary.truncation;
  const rate = `${((100 * truncated) / calls).toFixed(2)}%`;
  const line = `Truncation: ${truncated} of ${calls} verifier calls cut to fit (${rate}); ${refused} refused (answer too long)`;
  // The answer itself is never cut, but a cut question can still change the verdict.
  return truncated > 0 || refused > 0 ? `WARNING ${line}. See the truncations table.` : line;
}

/** Samples whose untrusted text had a delimiter or a tokenizer's added token broken. */
export function alteredLine(altered: number, samples: number): string {
  const share = samples === 0 ? "0.00%" : `${((100 * altered) / samples).toFixed(2)}%`;
  return `Untrusted text: ${altered} of ${samples} samples altered (${share}): a delimiter or special token in their text was broken before scoring (score detail \`altered\`)`;
}

export function formatMean(mean: number | null): string {
  return mean === null ? "-" : mean.toFixed(4);
}

function formatReasons(reasons: Record<string, number>): string {
  const entries = Object.entries(reasons).filter(([, count]) => count > 0);
  if (entries.length === 0) return "0";
  return entries.map(([reason, count]) => `${reason}: ${count}`).join(", ");
}
