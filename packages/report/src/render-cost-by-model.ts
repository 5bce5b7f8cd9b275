import { type ModelCost, perUnit, type RunReport } from "@assay/core";
import Table from "cli-table3";
import { formatMoney } from "./format.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/**
 * Each generator model of the answers and each verifier model: its tokens and what they
 * cost, that cost per solved task of the run, and for a generator model the tasks it
 * solved itself (those whose deciding candidate, the selected one else the first, it
 * generated) and its cost per such task; null when the report has no prices or no usage.
 * Cache writes are split into 5-minute and 1-hour writes, priced apart.
 */
export function costByModelTable(report: RunReport): string | null {
  const cost = report.cost;
  const models = cost?.byModel ?? [];
  if (cost === null || cost === undefined || models.length === 0) return null;
  const table = new Table({
    head: [
      "role",
      "model",
      "input",
      "cached input",
      "cache writes 5m",
      "cache writes 1h",
      "output",
      "compute s",
      "cost",
      "per solved task",
      "tasks it solved",
      "per task it solved",
    ],
    ...STYLE,
  });
  for (const m of models) {
    table.push([
      m.role,
      m.model,
      m.inputTokens,
      m.cachedInputTokens,
      m.cacheWriteTokens - (m.cacheWrite1hTokens ?? 0),
      m.cacheWrite1hTokens ?? 0,
      m.outputTokens,
      m.computeMs === null ? "–" : (m.computeMs / 1000).toFixed(1),
      formatMoney(m.cost, cost.currency),
      formatMoney(perUnit(m.cost, cost.solvedTasks), cost.currency),
      ...ownSolved(m, cost.currency),
    ]);
  }
  return `Cost by model (${cost.solvedTasks} solved tasks)\n${table.toString()}`;
}

/**
 * A generator model's own solved tasks and its cost per such task: "–" for a verifier,
 * "unknown" for a run rolled up before they were counted.
 */
export function ownSolved(m: ModelCost, currency: string): [string, string] {
  if (m.role !== "generator") return ["–", "–"];
  if (m.solved === null || m.solved === undefined) return ["unknown", "unknown"];
  return [String(m.solved), formatMoney(perUnit(m.cost, m.solved), currency)];
}
