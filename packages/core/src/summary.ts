import type { AnswerJoinCounts } from "./answer-join.js";

/** Results of one scorer under one routing rule. */
export interface ScorerRuleSummary {
  scorer: string;
  rule: string;
  /** Result rows stored (scored + unscored). */
  results: number;
  scored: number;
  /** Mean of scored values; null when nothing was scored. */
  mean: number | null;
  /** Unscored rows by reason. */
  unscored: Record<string, number>;
}

export interface InputErrorSummary {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** What `assay run` prints at the end and `assay report` prints later, from the store. */
export interface RunSummary {
  runId: string;
  name: string | null;
  dataset: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** Result rows the plan asked for; null until planning finished. */
  planned: number | null;
  samples: number;
  results: number;
  groups: ScorerRuleSummary[];
  inputErrors: number;
  /** The first few input errors, in line order. */
  inputErrorExamples: InputErrorSummary[];
  /** Verifier calls and how many had their input cut to fit the model's window. */
  truncation: { calls: number; truncated: number; refused: number };
  /**
   * Samples whose untrusted text (question, answer, metadata) a verifier changed before
   * scoring it: a score's `detail.altered` names the fields. Absent in summaries kept from
   * before it was counted.
   */
  alteredSamples?: number;
  /** Present when the answers were joined from batch outputs (`--answers`). */
  answers?: AnswerJoinCounts;
}

/** One row of `assay export`. */
export interface ExportRow {
  run_id: string;
  sample_id: string;
  task_id: string;
  scorer: string;
  criterion: string;
  repetition: number;
  status: string;
  value: number | null;
  reason: string | null;
  rule: string;
  /** What the scorer recorded beside its value (a verifier's distributions, a trajectory's progress). */
  detail: Record<string, unknown> | null;
}
