import type { GroupMean, SelfPreference } from "@assay/core";
import Table from "cli-table3";
import { answersText, gapText, verdictText } from "./self-preference-text.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/**
 * Mean verifier score by generator family and correctness (answers in brackets), then per
 * verifier the gap with its interval, the answers it rests on, and the warning or why none.
 */
export function selfPreferenceTable(checks: readonly SelfPreference[]): string {
  const table = new Table({
    head: ["scorer", "family", "", "correct", "incorrect"],
    ...STYLE,
  });
  const mean = (g: GroupMean) => `${g.mean === null ? "n/a" : g.mean.toFixed(3)} (${g.answers})`;
  const lines: string[] = [];
  for (const c of checks) {
    table.push([
      c.scorer,
      c.family,
      "same family",
      mean(c.sameFamily.correct),
      mean(c.sameFamily.incorrect),
    ]);
    table.push([
      "",
      "",
      "other generators",
      mean(c.otherFamily.correct),
      mean(c.otherFamily.incorrect),
    ]);
    lines.push(`  ${c.scorer}: gap ${gapText(c)}; answers: ${answersText(c)}`);
    lines.push(c.warning ? `  WARNING ${verdictText(c)}` : `  ${verdictText(c)}`);
  }
  return `Self-preference (mean verifier score on labelled answers)\n${table.toString()}\n${lines.join("\n")}`;
}
