import type { ExportRow } from "@assay/core";
import type { SampleLine } from "./exported-run.js";

// Passes and solved tasks again, from exported rows and the spec's rule alone (docs/figures.md,
// "Pass and solved"), with plain loops: no SQL of the report or the views is reused.

export interface PassRule {
  /** The spec's `pass.threshold` (0.5 without a `pass` section). */
  threshold: number;
  /** `pass.scorers`: per scorer key. */
  scorers: Record<string, number>;
  /** `pass.solved_by`; null: every result of the first candidate decides. */
  solvedBy: string | null;
  /** The selection's check scorer, which passes by `selection.threshold` instead. */
  check: { scorer: string; threshold: number } | null;
}

export function thresholdOf(rule: PassRule, scorer: string): number {
  if (rule.check?.scorer === scorer) return rule.check.threshold;
  return rule.scorers[scorer] ?? rule.threshold;
}

/** Per scorer, in name order: [scorer, rule text, scored, unscored, passed]. */
export function passesOf(
  scores: readonly ExportRow[],
  rule: PassRule,
): [string, string, number, number, number][] {
  const scorers = [...new Set(scores.map((row) => row.scorer))].sort();
  return scorers.map((scorer) => {
    const threshold = thresholdOf(rule, scorer);
    const rows = scores.filter((row) => row.scorer === scorer);
    const scored = rows.filter((row) => row.status === "scored");
    const passed = scored.filter((row) => (row.value as number) >= threshold).length;
    return [scorer, `value >= ${threshold}`, scored.length, rows.length - scored.length, passed];
  });
}

/**
 * Tasks whose first candidate (lowest candidate index, then line, then sample id) has at
 * least one result from the deciding scorer and every such result is scored and passes.
 */
export function solvedTasksOf(
  samples: readonly SampleLine[],
  scores: readonly ExportRow[],
  rule: PassRule,
): Set<string> {
  return new Set(solvedFirstCandidatesOf(samples, scores, rule).keys());
}

/** The solved tasks as above, each with its first candidate's sample id (what decided it). */
export function solvedFirstCandidatesOf(
  samples: readonly SampleLine[],
  scores: readonly ExportRow[],
  rule: PassRule,
): Map<string, string> {
  const first = new Map<string, SampleLine>();
  for (const sample of samples) {
    const held = first.get(sample.task_id);
    if (held === undefined || before(sample, held)) first.set(sample.task_id, sample);
  }
  const solved = new Map<string, string>();
  for (const [taskId, sample] of first) {
    const deciding = scores.filter(
      (row) =>
        row.sample_id === sample.sample_id &&
        (rule.solvedBy === null || row.scorer === rule.solvedBy),
    );
    const passes = deciding.every(
      (row) => row.status === "scored" && (row.value as number) >= thresholdOf(rule, row.scorer),
    );
    if (deciding.length > 0 && passes) solved.set(taskId, sample.sample_id);
  }
  return solved;
}

function before(a: SampleLine, b: SampleLine): boolean {
  if (a.candidate_index !== b.candidate_index) return a.candidate_index < b.candidate_index;
  if (a.line !== b.line) return a.line < b.line;
  return a.sample_id < b.sample_id;
}
