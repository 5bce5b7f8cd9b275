import type { Rate, RunReport } from "@assay/core";
import Table from "cli-table3";
import { formatCount, formatRate } from "./format.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

const rate = (r: Rate) => `${formatRate(r.rate)} (${r.count}/${r.of})`;
const figure = (v: number | null | undefined) => (v == null ? "n/a" : v.toFixed(1));

/** Best-of-N on the pointwise score beside the judged tournament, and the judge's position bias. */
export function pairwiseTable(report: RunReport): string | null {
  const pairwise = report.pairwise;
  if (pairwise === null || pairwise === undefined) return null;
  const table = new Table({ head: ["", "selected accuracy"], ...STYLE });
  table.push(["pointwise (best-of-N)", rate(pairwise.pointwiseSelected)]);
  table.push(["pairwise (judged tournament)", rate(pairwise.pairwiseSelected)]);
  table.push(["position bias (pairs flipped by order)", rate(pairwise.positionBias)]);
  return `Pointwise vs pairwise selection (${pairwise.tasks} tasks)\n${table.toString()}`;
}

/**
 * Verifier tokens, prompts scored and forward passes run per solved task, by scorer, and
 * the cached share. A pass is split over the rows it carried, so a scorer's passes may be
 * fractional when its prompts shared passes with another scorer's or run's.
 */
export function verifierEffortTable(report: RunReport): string | null {
  const effort = report.verifierEffort;
  if (effort === undefined || effort.byScorer.length === 0) return null;
  const table = new Table({
    head: ["scorer", "input tokens", "cached tokens", "prompts", "forward passes"],
    ...STYLE,
  });
  for (const row of effort.byScorer) {
    table.push([
      row.scorer,
      row.inputTokens,
      row.cachedInputTokens,
      formatCount(row.prompts),
      formatCount(row.forwardPasses),
    ]);
  }
  const lines = [
    `solved tasks: ${effort.solvedTasks}`,
    `verifier tokens per solved task: ${figure(effort.tokensPerSolvedTask)}`,
    `prompts scored per solved task: ${figure(effort.promptsPerSolvedTask)}`,
    `forward passes per solved task: ${figure(effort.forwardPassesPerSolvedTask)}`,
    `cached share of verifier input tokens: ${rate(effort.cachedShare)}`,
  ];
  return `Verifier compute\n${table.toString()}\n${lines.map((l) => `  ${l}`).join("\n")}`;
}
