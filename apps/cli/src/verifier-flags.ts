import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { positiveInt } from "./options.js";

/**
 * The verifier's own defaults (`DEFAULT_BATCH_TOKENS`, `DEFAULT_BATCH_ROWS` and prefix reuse
 * on, in @assay/verifier), repeated so that `--help` loads no verifier code; a test checks
 * that they agree.
 */
export const VERIFIER_DEFAULTS = {
  maxBatchTokens: 16_384,
  maxBatchRows: 64,
  prefixReuse: "on" as "on" | "off",
};

/** What the operator asked for on the command line; unset fields come from elsewhere. */
export interface VerifierFlags {
  maxBatchTokens?: number;
  maxBatchRows?: number;
  prefixReuse?: "on" | "off";
}

/** The verifier flags as commander parses them: each has a default. */
export type ParsedVerifierFlags = Required<VerifierFlags>;

/**
 * `--max-batch-tokens`, `--max-batch-rows` and `--prefix-reuse`. Their defaults show in
 * `--help`, but a flag the operator did not type must not override the model's assay.json,
 * so `verifierFlagsGiven` reads only the flags given.
 */
export function addVerifierFlags<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return command
    .addOption(
      new Option(
        "--max-batch-tokens <n>",
        "verifier: most padded tokens (rows × longest row) in one forward pass; lower it to bound memory. Wins over $ASSAY_MAX_BATCH_TOKENS, then the model's assay.json batch.max_tokens",
      )
        .argParser(positiveInt("--max-batch-tokens"))
        .default(VERIFIER_DEFAULTS.maxBatchTokens),
    )
    .addOption(
      new Option(
        "--max-batch-rows <n>",
        "verifier: most rows in one forward pass. Wins over $ASSAY_MAX_BATCH_ROWS, then assay.json batch.max_rows",
      )
        .argParser(positiveInt("--max-batch-rows"))
        .default(VERIFIER_DEFAULTS.maxBatchRows),
    )
    .addOption(
      new Option(
        "--prefix-reuse <on|off>",
        "verifier: compute a prefix shared by a sample's prompts once (graphs with past key values). Wins over $ASSAY_PREFIX_REUSE, then assay.json prefix_reuse",
      )
        .choices(["on", "off"] as const)
        .default(VERIFIER_DEFAULTS.prefixReuse),
    );
}

/** The verifier flags typed on the command line (not their help defaults). */
export function verifierFlagsGiven<Args extends unknown[], Opts extends ParsedVerifierFlags>(
  command: Command<Args, Opts>,
): VerifierFlags {
  const given = (name: keyof VerifierFlags) => command.getOptionValueSource(name) === "cli";
  const options = command.opts();
  return {
    ...(given("maxBatchTokens") && { maxBatchTokens: options.maxBatchTokens }),
    ...(given("maxBatchRows") && { maxBatchRows: options.maxBatchRows }),
    ...(given("prefixReuse") && { prefixReuse: options.prefixReuse }),
  };
}
