import type { RunSummary } from "@assay/core";
import { duration, resultRate } from "./progress-meter.js";

/**
 * The line a watched run ends with, from the store's own counts: results stored of the
 * plan, how many carry a score, input errors, the time watched and the mean rate.
 */
export function finalLine(
  summary: RunSummary,
  watchedSeconds: number,
  meanRate: number | undefined,
): string {
  const scored = summary.groups.reduce((sum, group) => sum + group.scored, 0);
  const unscored = summary.groups.reduce((sum, group) => sum + group.results - group.scored, 0);
  const { results, planned } = summary;
  const finished = planned !== null && results >= planned;
  const of =
    planned === null
      ? `${results} results stored (the dataset was not read to its end)`
      : `${results}/${planned} results stored`;
  const parts = [`${scored} scored`, `${unscored} unscored`];
  if (planned !== null && planned > results) parts.push(`${planned - results} not stored`);
  parts.push(`${summary.inputErrors} input errors`);
  return (
    `${finished ? "done" : "stopped"}: ${of}: ${parts.join(", ")}; ` +
    `${duration(watchedSeconds)} elapsed, mean ${resultRate(meanRate)}`
  );
}
