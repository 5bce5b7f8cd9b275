import type { AnswerFormat } from "@assay/core";

/** Where a run's answers come from when they are not in its dataset (`--answers`). */
export interface AnswerSources {
  /** Batch output files, read in order: of two lines with one custom id, the first wins. */
  files: readonly string[];
  format: AnswerFormat;
  /**
   * Put before a reference row's id to make the custom id its answer has. Default "": the
   * custom id is the id.
   */
  idPrefix?: string;
}
