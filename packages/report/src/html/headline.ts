import type { Rate, RunReport } from "@assay/core";
import { formatMoney, formatRate } from "../format.js";
import { escapeHtml } from "./escape-html.js";

/** The handful of numbers a reader should see first, as cards with their counts. */
export function headlineCards(report: RunReport): string {
  const cost = report.cost;
  const cards = [
    card("pass1", "pass@1", rateText(report.accuracy.pass1), countText(report.accuracy.pass1)),
    card(
      "selected",
      "verifier-selected",
      rateText(report.accuracy.selected),
      countText(report.accuracy.selected),
    ),
    card("oracle", "oracle", rateText(report.accuracy.oracle), countText(report.accuracy.oracle)),
    card(
      "unselected",
      "no scored candidate",
      report.accuracy.methods.length === 0 ? "n/a" : String(report.accuracy.unselected),
      "tasks, counted unsolved",
    ),
    card(
      "cost-per-solved",
      "cost per solved task",
      cost === null ? "no prices" : formatMoney(cost.perSolvedTask.total, cost.currency),
      cost === null ? "pass --prices" : `${cost.solvedTasks} solved`,
    ),
    card(
      "truncation-rate",
      "cut to fit",
      rateText(report.truncation.overall),
      `${countText(report.truncation.overall)}; ${report.truncation.refused.count} refused`,
    ),
    card(
      "unscored-rate",
      "unscored",
      rateText(report.unscored.unscored),
      countText(report.unscored.unscored),
    ),
    card(
      "tie-rate",
      "top tie (continuous)",
      rateText(report.ties.continuous),
      discreteText(report.ties.discrete),
    ),
  ];
  return `<section class="cards">${cards.join("")}</section>`;
}

function card(id: string, label: string, value: string, detail: string): string {
  return `<div class="card" data-metric="${id}"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div><div class="detail">${escapeHtml(detail)}</div></div>`;
}

function rateText(rate: Rate): string {
  return formatRate(rate.rate);
}

function countText(rate: Rate): string {
  return `${rate.count} of ${rate.of}`;
}

function discreteText(rate: Rate): string {
  return rate.of === 0 ? "discrete judge: n/a" : `discrete judge: ${formatRate(rate.rate)}`;
}
