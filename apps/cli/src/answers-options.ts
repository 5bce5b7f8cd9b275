import { ANSWER_FORMATS, type AnswerFormat } from "@assay/core/input-formats";
import type { AnswerSources } from "@assay/pipeline";
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { CliExit, ExitCode } from "./exit-codes.js";

/** The answer-join flags, as commander parses them. */
export interface AnswersFlags {
  answers?: string[];
  answersFormat?: AnswerFormat;
  answersIdPrefix?: string;
}

/**
 * `--answers`, `--answers-format` and `--answers-id-prefix`, shared by `run` and `produce`:
 * the dataset is then a reference whose answers come from batch outputs.
 */
export function addAnswersOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return command
    .option(
      "--answers <file>",
      "batch output whose answers are joined to the dataset on custom_id = id (repeatable); the dataset rows then have no answer",
      (file: string, files: string[] = []) => [...files, file],
    )
    .addOption(
      new Option("--answers-format <format>", "format of the --answers files").choices(
        ANSWER_FORMATS,
      ),
    )
    .option(
      "--answers-id-prefix <prefix>",
      'custom_id = prefix + id (e.g. "task-" when custom_id is task-<id>); default: custom_id = id',
    );
}

/** The answer sources the flags name, or undefined when the answers are in the dataset. */
export function answerSources(flags: AnswersFlags): AnswerSources | undefined {
  if (flags.answers === undefined) {
    if (flags.answersFormat !== undefined || flags.answersIdPrefix !== undefined) {
      throw new CliExit(
        ExitCode.usage,
        "--answers-format and --answers-id-prefix go with --answers <file>; add it, or drop them.",
      );
    }
    return undefined;
  }
  if (flags.answersFormat === undefined) {
    throw new CliExit(
      ExitCode.usage,
      `--answers needs --answers-format (${ANSWER_FORMATS.join(" or ")}): the format of ${flags.answers[0]}.`,
    );
  }
  return {
    files: flags.answers,
    format: flags.answersFormat,
    ...(flags.answersIdPrefix !== undefined && { idPrefix: flags.answersIdPrefix }),
  };
}
