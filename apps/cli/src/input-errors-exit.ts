import { DEFAULT_MAX_INPUT_ERRORS } from "@assay/core/input-formats";
import { ExitCode } from "./exit-codes.js";

/** `--allow-input-errors`, the same on every command that completes a run. */
export const ALLOW_INPUT_ERRORS_OPTION = [
  "--allow-input-errors",
  "exit 0, not 4, when the run completes with input errors (they stay in the summary, `assay status` and input_errors), e.g. for a scheduler that should count such a night as done",
] as const;

export interface InputErrorsFlags {
  allowInputErrors?: boolean;
  /** `--max-input-errors`; the default where a caller gives none. */
  maxInputErrors?: number;
}

/**
 * The exit code of a run that completed with `inputErrors` lines refused: 4 (`inputErrors`)
 * unless `--allow-input-errors` makes it a success; whoever schedules the run chooses.
 */
export function completedExitCode(inputErrors: number, flags: InputErrorsFlags): ExitCode {
  return inputErrors > 0 && flags.allowInputErrors !== true ? ExitCode.inputErrors : ExitCode.ok;
}

/** `--max-input-errors`: where a run stops reading, on every command that reads a dataset. */
export function maxInputErrorsOption(parse: (value: string) => number) {
  return [
    "--max-input-errors <n>",
    "stop reading after this many input errors (what was read is stored; resume with --run-id), so a file in another shape does not become one error row per line",
    parse,
    DEFAULT_MAX_INPUT_ERRORS,
  ] as const;
}

/** What the CLI says when reading stopped at the input error limit; exit 4 follows. */
export function inputErrorLimitLine(limit: number, resume: string): string {
  return (
    `Stopped reading: ${limit} input errors, the limit (--max-input-errors). What was read is ` +
    "stored and scored; the first errors are listed above and all are in input_errors. Fix " +
    `the dataset (or the spec's fields), or raise --max-input-errors, then resume with: ${resume}`
  );
}
