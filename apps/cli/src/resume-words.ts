import { resolve } from "node:path";
import { type DatasetFormat, DEFAULT_MAX_LINE_BYTES } from "@assay/core/input-formats";
import type { AnswersFlags } from "./answers-options.js";

/** What a run was read with, as `assay run` and `assay produce` take it. */
export interface ResumeFlags extends AnswersFlags {
  spec?: string;
  format?: DatasetFormat;
  maxLineBytes: number;
}

/**
 * The words (unquoted) after the command name of the `assay run` or `assay produce` that
 * resumes a run: the dataset and run id, the spec, format and answers it was read with,
 * files as absolute paths so the line works pasted in any folder, and `storeWords` (where
 * the command names its store) after the format. A resume reads the rest of the file as
 * the first attempt did, so a non-default --max-line-bytes is repeated too.
 */
export function resumeWords(
  dataset: string,
  runId: string,
  flags: ResumeFlags,
  storeWords: readonly string[] = [],
): string[] {
  const words = [dataset === "-" ? dataset : resolve(dataset), "--run-id", runId];
  if (flags.spec !== undefined) words.push("--spec", resolve(flags.spec));
  if (flags.format !== undefined) words.push("--format", flags.format);
  words.push(...storeWords);
  for (const file of flags.answers ?? []) words.push("--answers", resolve(file));
  if (flags.answersFormat !== undefined) words.push("--answers-format", flags.answersFormat);
  if (flags.answersIdPrefix !== undefined) {
    words.push("--answers-id-prefix", flags.answersIdPrefix);
  }
  if (flags.maxLineBytes !== DEFAULT_MAX_LINE_BYTES) {
    words.push("--max-line-bytes", String(flags.maxLineBytes));
  }
  return words;
}
