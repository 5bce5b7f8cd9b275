import { REQUEST_FORMATS } from "@assay/core/input-formats";
import { type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import type { RequestsFlags } from "../actions/requests.js";
import { declaredFlags } from "../declared-flags.js";
import { ALLOW_INPUT_ERRORS_OPTION } from "../input-errors-exit.js";
import { decimalNumber, FORMAT_OPTION, MAX_LINE_BYTES_OPTION, positiveInt } from "../options.js";

export function registerRequests(program: CommandUnknownOpts): void {
  program
    .command("requests")
    .description(
      "write a reference dataset as batch requests (OpenAI, Anthropic, vLLM) whose answers `run --answers` joins",
    )
    .argument(
      "<dataset>",
      "reference dataset (as for `run --answers`): one row per task, no answer",
    )
    .addOption(
      new Option("--api <api>", "the batch API the requests are for")
        .choices(REQUEST_FORMATS)
        .makeOptionMandatory(),
    )
    .requiredOption("--model <model>", "model every request names")
    .option("--system <text>", "system prompt (default: none)")
    .option(
      "--template <text>",
      "the user prompt: {question}, {id}, {task_id}, {target}, {metadata.<key>}; {{ and }} for braces",
      "{question}",
    )
    .option(
      "--spec <file>",
      "run spec whose `fields` map the dataset's columns (the one `run` uses)",
    )
    .option(
      "--max-tokens <n>",
      "most tokens per answer (required by anthropic-batch)",
      positiveInt("--max-tokens"),
    )
    .option("--temperature <t>", "sampling temperature", decimalNumber("--temperature", { max: 2 }))
    .option("--top-p <p>", "nucleus sampling", decimalNumber("--top-p", { max: 1 }))
    .option(
      "--samples <n>",
      "answers per row for best-of-N: `n` on openai-chat and vllm, else n requests <id>__s<k>",
      positiveInt("--samples"),
      1,
    )
    .option("--out <dir>", "folder for the numbered request files", "requests")
    .option(
      "--max-file-requests <n>",
      "requests per file, at most the API's (OpenAI 50,000; Anthropic 100,000)",
      positiveInt("--max-file-requests"),
    )
    .option(
      "--max-file-bytes <n>",
      "bytes per file, at most the API's (OpenAI 200 MB; Anthropic 256 MB)",
      positiveInt("--max-file-bytes"),
    )
    .option(
      "--estimate",
      "write nothing; print the requests' tokens and, with --prices, their cost",
    )
    .option("--prices <file>", "price table (as for `report --prices`) for --estimate")
    .option(...FORMAT_OPTION)
    .option(...MAX_LINE_BYTES_OPTION)
    .option(...ALLOW_INPUT_ERRORS_OPTION)
    .option("--json", "print what was written (or estimated) as JSON on stdout")
    .action(async (dataset, flags) => {
      const { requestsAction } = await import("../actions/requests.js");
      process.exitCode = await requestsAction(dataset, declaredFlags<RequestsFlags>()(flags));
    });
}
