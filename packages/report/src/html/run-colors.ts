import type { ReportBundle } from "@assay/core";

/** Ten colours told apart easily (Tableau 10, with the report's own blue and orange first). */
export const PALETTE = [
  "#2f6fdf",
  "#e08a1e",
  "#2a9d5c",
  "#a347ba",
  "#d62728",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
] as const;

/** The colour of anything of one run, whatever chart it is drawn in. */
export type RunColor = (runId: string) => string;

/**
 * One colour per run for the whole page, so a run reads the same in every chart: the
 * reported run first, the compared run second, then the trend's other runs, oldest first.
 * Past ten runs the colours repeat; the legend and labels still name each run.
 */
export function runColors(bundle: ReportBundle): RunColor {
  const order = [
    bundle.report.run.runId,
    ...(bundle.compare === null ? [] : [bundle.compare.run.runId]),
    ...bundle.trend.map((p) => p.run.runId),
  ];
  const colors = new Map<string, string>();
  for (const id of order) {
    if (!colors.has(id)) colors.set(id, PALETTE[colors.size % PALETTE.length] as string);
  }
  return (runId) => colors.get(runId) ?? PALETTE[0];
}
