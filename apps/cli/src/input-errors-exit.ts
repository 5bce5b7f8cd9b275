import { ExitCode } from "./exit-codes.js";

/** `--allow-input-errors`, the same on every command that completes a run. */
export const ALLOW_INPUT_ERRORS_OPTION = [
  "--allow-input-errors",
  "exit 0, not 4, when the run completes with input errors (they stay in the summary, `assay status` and input_errors), e.g. for a scheduler that should count such a night as done",
] as const;

export interface InputErrorsFlags {
  allowInputErrors?: boolean;
}

/**
 * The exit code of a run that completed with `inputErrors` lines refused: 4 (`inputErrors`)
 * unless `--allow-input-errors` makes it a success; whoever schedules the run chooses.
 */
export function completedExitCode(inputErrors: number, flags: InputErrorsFlags): ExitCode {
  return inputErrors > 0 && flags.allowInputErrors !== true ? ExitCode.inputErrors : ExitCode.ok;
}
