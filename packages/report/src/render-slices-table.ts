import type { Rate, SliceFigures, SliceReport } from "@assay/core";
import Table from "cli-table3";
import { formatMoney, formatRate, plural } from "./format.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/** How a slice's value is shown: samples without the field are "(none)". */
export function sliceName(value: string | null): string {
  return value === null ? "(none)" : value;
}

/** One row of the sliced headline table: a label and each slice's cell. */
export interface SliceRow {
  id: string;
  label: string;
  cell(slice: SliceFigures): string;
}

/**
 * Whether any slice has a pick: without one, the selection rows (pass@1 to cost per solved
 * task) would be "n/a" in every column, so they are left out and `slicesAbsentNote` says why.
 */
function anyPick(report: SliceReport): boolean {
  return report.slices.some((s) => s.tie.of > 0 || s.pass1.of > 0);
}

/** Whether the spec's pass rule decides the slices' solved tasks (a run without selection). */
function solvedByRule(report: SliceReport): boolean {
  return report.slices.some((s) => s.solved?.decidedBy === "pass_rule");
}

/** One line naming the rows left out of the sliced table, or null when none were. */
export function slicesAbsentNote(report: SliceReport): string | null {
  const absent: string[] = [];
  if (!anyPick(report)) {
    absent.push(
      solvedByRule(report)
        ? "no selection is stored, so the selection rows do not apply; a task is solved when its first candidate passes the spec's pass rule"
        : "no task has a pick, so the selection rows do not apply",
    );
  }
  if (report.slices.every((s) => s.truncation.of === 0)) absent.push("no verifier calls");
  return absent.length === 0 ? null : `Left out: ${absent.join("; ")}.`;
}

/** The headline figures, one row each, then one row per scorer mean. */
export function sliceRows(report: SliceReport): SliceRow[] {
  const scorers = [...new Set(report.slices.flatMap((s) => s.scorers.map((c) => c.scorer)))].sort();
  const cost =
    (pick: (c: NonNullable<SliceFigures["cost"]>) => number | null) => (s: SliceFigures) =>
      s.cost === null ? "no prices" : formatMoney(pick(s.cost), s.cost.currency);
  const selection: SliceRow[] = [
    { id: "pass1", label: "pass@1", cell: (s) => rateCell(s.pass1) },
    { id: "selected", label: "verifier-selected", cell: (s) => rateCell(s.selected) },
    { id: "oracle", label: "oracle", cell: (s) => rateCell(s.oracle) },
    { id: "unselected", label: "no scored candidate", cell: (s) => plural(s.unselected, "task") },
    { id: "tie", label: "top tie (continuous)", cell: (s) => rateCell(s.tie) },
    { id: "cost-per-solved", label: "cost per solved task", cell: cost((c) => c.perSolvedTask) },
  ];
  // Without selection the pass rule decides solved tasks, as in the unsliced report.
  const byRule: SliceRow[] = [
    { id: "solved", label: "solved (pass rule)", cell: (s) => solvedCell(s) },
    { id: "cost-per-solved", label: "cost per solved task", cell: cost((c) => c.perSolvedTask) },
  ];
  const truncation: SliceRow[] = [
    { id: "truncated", label: "cut to fit", cell: (s) => rateCell(s.truncation) },
  ];
  return [
    { id: "tasks", label: "tasks / samples", cell: (s) => `${s.tasks} / ${s.samples}` },
    ...(anyPick(report) ? selection : solvedByRule(report) ? byRule : []),
    { id: "cost-per-sample", label: "cost per sample", cell: cost((c) => c.perSample) },
    ...(report.slices.some((s) => s.truncation.of > 0) ? truncation : []),
    { id: "unscored", label: "unscored", cell: (s) => rateCell(s.unscored) },
    ...scorers.map((scorer) => ({
      id: `mean-${scorer}`,
      label: `mean ${scorer}`,
      cell: (s: SliceFigures) => {
        const found = s.scorers.find((c) => c.scorer === scorer);
        return found?.mean == null ? "n/a" : `${found.mean.toFixed(4)} (${found.scored})`;
      },
    })),
  ];
}

/** Every headline figure by the value of one metadata field, a column per value. */
export function slicesTable(report: SliceReport): string {
  const source = report.fromRawRows === undefined ? "" : ` (from raw rows: ${report.fromRawRows})`;
  const title = `By ${report.by}${source}`;
  if (report.slices.length === 0) return `${title}: no samples`;
  const table = new Table({
    head: ["", ...report.slices.map((s) => sliceName(s.value))],
    ...STYLE,
  });
  for (const row of sliceRows(report)) {
    table.push([row.label, ...report.slices.map((s) => row.cell(s))]);
  }
  const note = slicesAbsentNote(report);
  return `${title}\n${table.toString()}${note === null ? "" : `\n${note}`}`;
}

/** Solved tasks over the slice's tasks. */
function solvedCell(slice: SliceFigures): string {
  const solved = slice.solved?.solved ?? 0;
  return rateCell({
    count: solved,
    of: slice.tasks,
    rate: slice.tasks === 0 ? null : solved / slice.tasks,
  });
}

function rateCell(rate: Rate): string {
  return rate.of === 0 ? "n/a" : `${formatRate(rate.rate)} (${rate.count}/${rate.of})`;
}
