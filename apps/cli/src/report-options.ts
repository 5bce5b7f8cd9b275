import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from "@assay/core/stats";
import { metadataPath } from "@assay/store/report-options";
import { InvalidArgumentError } from "commander";
import { CliExit, ExitCode } from "./exit-codes.js";

/** `assay report --by metadata.<key>`: checked when parsed, so a typo fails before any query. */
export const BY_OPTION = [
  "--by <field>",
  "slice every headline figure by a metadata field, e.g. metadata.kind (dots reach nested keys)",
  (value: string): string => {
    try {
      metadataPath(value);
      return value;
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  },
] as const;

export const RESAMPLES_OPTION = [
  "--resamples <n>",
  "with --compare: bootstrap resamples of the paired tasks",
  String(DEFAULT_RESAMPLES),
] as const;

export const SEED_OPTION = [
  "--seed <n>",
  "with --compare: seed of the bootstrap (the same seed prints the same intervals)",
  String(DEFAULT_BOOTSTRAP_SEED),
] as const;

/** The bundle options of `--by`, `--resamples` and `--seed`. */
export function comparisonOptions(flags: { by?: string; resamples: string; seed: string }) {
  return {
    ...(flags.by !== undefined && { by: flags.by }),
    bootstrap: {
      resamples: wholeNumber("--resamples", flags.resamples, 1),
      seed: wholeNumber("--seed", flags.seed, 0),
    },
  };
}

function wholeNumber(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() !== "" && Number.isInteger(n) && n >= min && n <= 2 ** 32 - 1) return n;
  throw new CliExit(
    ExitCode.refused,
    `Expected \`${flag}\` to be a whole number from ${min} up to 4294967295, got \`${value}\``,
  );
}

/** Seconds a report query may run on a Postgres server unless `--statement-timeout` says. */
export const DEFAULT_STATEMENT_TIMEOUT_S = 300;
/** Postgres keeps the timeout in milliseconds, in an int4. */
const MAX_STATEMENT_TIMEOUT_S = 2_147_483;

/** `--statement-timeout <seconds>`, in the style of the report's other options. */
export const STATEMENT_TIMEOUT_OPTION = [
  "--statement-timeout <seconds>",
  "Postgres cancels a report query that runs longer than this (0: no limit)",
  (value: string): number => {
    const seconds = Number(value);
    if (value.trim() !== "" && seconds >= 0 && seconds <= MAX_STATEMENT_TIMEOUT_S) return seconds;
    throw new InvalidArgumentError(
      `Expected --statement-timeout to be a number of seconds from 0 to ${MAX_STATEMENT_TIMEOUT_S} (0: no limit), got "${value}".`,
    );
  },
  DEFAULT_STATEMENT_TIMEOUT_S,
] as const;
