import { type Rate, type RunReport, rateOf, type ScorerMean } from "@assay/core";
import { formatMoney, formatRate } from "../format.js";
import { scorerMeanInterval, scorerMeanKind, scorerMeanValue } from "../scorer-means.js";
import { escapeHtml } from "./escape-html.js";

/**
 * The handful of numbers a reader should see first, as cards with their counts. A card
 * whose figure does not apply to the run (selection figures of a run without selection,
 * truncation of a run that called no verifier) is left out; `absentLine` says why.
 */
export function headlineCards(report: RunReport): string {
  const cards = [
    ...selectionCards(report),
    ...report.scorerMeans.map(scorerCard),
    ...truncationCards(report),
    ...(report.unscored.results === 0
      ? []
      : [
          card(
            "unscored-rate",
            "unscored",
            rateText(report.unscored.unscored),
            countText(report.unscored.unscored),
          ),
        ]),
  ];
  return `<section class="cards">${cards.join("")}</section>`;
}

/** One line naming the headline figures that do not apply to this run and why; "" if all do. */
export function absentLine(report: RunReport): string {
  const absent: string[] = [];
  if (report.accuracy.methods.length === 0) {
    absent.push(
      report.solved === undefined
        ? "No selection is stored for this run, so pass@1, verifier-selected, oracle, top ties and cost per solved task do not apply; the scorer means are its headline figures."
        : "No selection is stored for this run, so pass@1, verifier-selected, oracle and top ties do not apply; a task is solved when its first candidate passes the spec's pass rule.",
    );
  }
  if (report.truncation.overall.of === 0) {
    absent.push("No verifier calls were recorded, so there is no truncation to report.");
  }
  if (report.unscored.results === 0) absent.push("No results are stored for this run yet.");
  if (absent.length === 0) return "";
  return `<p class="absent" data-note="absent">${escapeHtml(absent.join(" "))}</p>`;
}

function selectionCards(report: RunReport): string[] {
  const cost = report.cost;
  if (report.accuracy.methods.length === 0) {
    // Without a pick the pass rule decides solved tasks (docs/figures.md, "Pass and solved").
    return [...passRuleCards(report), ...(cost === null ? [] : [costCard(cost)])];
  }
  return [
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
      String(report.accuracy.unselected),
      "tasks, counted unsolved",
    ),
    card(
      "cost-per-solved",
      "cost per solved task",
      cost === null ? "no prices" : formatMoney(cost.perSolvedTask.total, cost.currency),
      cost === null ? "pass --prices" : `${cost.solvedTasks} solved`,
    ),
    card(
      "tie-rate",
      "top tie (continuous)",
      rateText(report.ties.continuous),
      discreteText(report.ties.discrete),
    ),
  ];
}

/** Solved tasks under the pass rule and what each cost, as the text report's rows. */
function passRuleCards(report: RunReport): string[] {
  const solved = report.solved;
  if (solved === undefined) return [];
  const rate = rateOf(solved.solved, solved.tasks);
  const cards = [card("solved", "solved (pass rule)", rateText(rate), countText(rate))];
  const cost = report.cost;
  if (cost !== null) {
    cards.push(
      card(
        "cost-per-solved",
        "cost per solved task",
        formatMoney(cost.perSolvedTask.total, cost.currency),
        `${cost.solvedTasks} solved`,
      ),
    );
  }
  return cards;
}

/** What the run cost in all, whether or not any task was solved. */
function costCard(cost: NonNullable<RunReport["cost"]>): string {
  return card(
    "cost-total",
    "cost",
    formatMoney(cost.total, cost.currency),
    `${cost.samples} samples; ${formatMoney(cost.perSample, cost.currency)} each`,
  );
}

function truncationCards(report: RunReport): string[] {
  if (report.truncation.overall.of === 0) return [];
  return [
    card(
      "truncation-rate",
      "cut to fit",
      rateText(report.truncation.overall),
      `${countText(report.truncation.overall)} calls; ${report.truncation.refused.count} refused`,
    ),
  ];
}

function scorerCard(m: ScorerMean): string {
  const counts = m.passes === null ? `${m.scored} scored` : `${m.passes} of ${m.scored} passed`;
  return card(
    `scorer-${m.scorer}`,
    `${m.scorer} ${scorerMeanKind(m)}`,
    scorerMeanValue(m),
    `${counts}; ${scorerMeanInterval(m)}`,
    { scorer: m.scorer, scored: m.scored, "interval-low": m.low, "interval-high": m.high },
  );
}

function card(
  id: string,
  label: string,
  value: string,
  detail: string,
  data: Record<string, string | number> = {},
): string {
  const extra = Object.entries(data)
    .map(([key, v]) => ` data-${key}="${escapeHtml(String(v))}"`)
    .join("");
  return `<div class="card" data-metric="${escapeHtml(id)}"${extra}><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div><div class="detail">${escapeHtml(detail)}</div></div>`;
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
