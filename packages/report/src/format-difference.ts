import { MOMENTS_FROM, type PairedDifference } from "@assay/core";
import { formatRate } from "./format.js";

/** A figure of one run: accuracies as percentages, scorer means with four decimals. */
export function formatFigure(kind: PairedDifference["kind"], value: number | null): string {
  if (value === null) return "n/a";
  return kind === "accuracy" ? formatRate(value) : value.toFixed(4);
}

/** A signed difference: accuracies in percentage points ("-2.0 pts"), means as numbers. */
export function formatDelta(kind: PairedDifference["kind"], value: number | null): string {
  if (value === null) return "n/a";
  const text = kind === "accuracy" ? (value * 100).toFixed(1) : value.toFixed(4);
  // -0.0 prints as "-0.0"; a zero has no sign.
  const zero = Number(text) === 0;
  const signed = zero ? text.replace("-", "") : `${value > 0 ? "+" : ""}${text}`;
  return kind === "accuracy" ? `${signed} pts` : signed;
}

/** "[-4.1, +0.2] pts", "[-0.0130, +0.0020] normal", or "n/a" without paired tasks. */
export function formatInterval(d: PairedDifference): string {
  if (d.low === null || d.high === null) return "n/a";
  const bound = (v: number) => formatDelta(d.kind, v).replace(" pts", "");
  const unit = d.kind === "accuracy" ? " pts" : "";
  return `[${bound(d.low)}, ${bound(d.high)}]${unit}${d.interval === "normal" ? " normal" : ""}`;
}

/** What an interval marked "normal" is, for the comparison's notes; null when none is. */
export function normalIntervalNote(differences: readonly PairedDifference[]): string | null {
  if (!differences.some((d) => d.interval === "normal")) return null;
  return (
    `An interval marked normal is the one the bootstrap converges to (difference ± z·sd/√tasks): ` +
    `over more than ${MOMENTS_FROM.tasks.toLocaleString("en-US")} tasks of more than ` +
    `${MOMENTS_FROM.distinct} distinct differences, resampling them one by one would take minutes.`
  );
}

/** What a reader should conclude from the interval. */
export function verdictOf(d: PairedDifference): string {
  if (d.tasks === 0) return "no tasks in both runs";
  if (!d.excludesZero) return "within noise";
  return (d.difference ?? 0) > 0 ? "higher: beyond noise" : "lower: beyond noise";
}

/** "95% bootstrap interval over 24 paired tasks, 2000 resamples, seed 1". */
export function bootstrapNote(confidence: number, resamples: number, seed: number): string {
  return `${Math.round(confidence * 100)}% paired bootstrap interval over tasks, ${resamples} resamples, seed ${seed}`;
}
