import type { RunSummary, ScorerRuleSummary } from "@assay/core";

export interface ScorerTotals {
  scorer: string;
  results: number;
  scored: number;
  mean: number | null;
  unscored: Record<string, number>;
}

/** Folds the per-(scorer, rule) groups of a summary into one row per scorer. */
export function totalsByScorer(summary: RunSummary): ScorerTotals[] {
  const byScorer = new Map<string, { totals: ScorerTotals; sum: number }>();
  for (const group of summary.groups) {
    const entry = byScorer.get(group.scorer) ?? {
      totals: { scorer: group.scorer, results: 0, scored: 0, mean: null, unscored: {} },
      sum: 0,
    };
    entry.totals.results += group.results;
    entry.totals.scored += group.scored;
    entry.sum += (group.mean ?? 0) * group.scored;
    addCounts(entry.totals.unscored, group.unscored);
    byScorer.set(group.scorer, entry);
  }
  return [...byScorer.values()]
    .map(({ totals, sum }) => ({ ...totals, mean: totals.scored > 0 ? sum / totals.scored : null }))
    .sort((a, b) => a.scorer.localeCompare(b.scorer));
}

/** Groups sorted for the routing table: by rule, then scorer. */
export function routingSplit(summary: RunSummary): ScorerRuleSummary[] {
  return [...summary.groups].sort(
    (a, b) => a.rule.localeCompare(b.rule) || a.scorer.localeCompare(b.scorer),
  );
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [reason, count] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + count;
}
