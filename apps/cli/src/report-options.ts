import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_RESAMPLES } from "@assay/core/stats";
import { metadataPath } from "@assay/store/report-options";
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { decimalNumber, wholeNumber } from "./options.js";

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

/** The bootstrap draws from a 32-bit generator: its seed and count fit in 32 bits. */
const MAX_UINT32 = 2 ** 32 - 1;

export const RESAMPLES_OPTION = [
  "--resamples <n>",
  "with --compare: bootstrap resamples of the paired tasks",
  wholeNumber("--resamples", { max: MAX_UINT32 }),
  DEFAULT_RESAMPLES,
] as const;

export const SEED_OPTION = [
  "--seed <n>",
  "with --compare: seed of the bootstrap (the same seed prints the same intervals)",
  wholeNumber("--seed", { min: 0, max: MAX_UINT32 }),
  DEFAULT_BOOTSTRAP_SEED,
] as const;

/** The bundle options of `--by`, `--resamples` and `--seed`. */
export function comparisonOptions(flags: { by?: string; resamples: number; seed: number }) {
  return {
    ...(flags.by !== undefined && { by: flags.by }),
    bootstrap: { resamples: flags.resamples, seed: flags.seed },
  };
}

/** Seconds a report query may run on a Postgres server unless `--statement-timeout` says. */
export const DEFAULT_STATEMENT_TIMEOUT_S = 300;
/** Postgres keeps the timeout in milliseconds, in an int4. */
const MAX_STATEMENT_TIMEOUT_S = 2_147_483;

/** `--statement-timeout <seconds>`, in the style of the report's other options. */
export const STATEMENT_TIMEOUT_OPTION = [
  "--statement-timeout <seconds>",
  "Postgres cancels a report query that runs longer than this (0: no limit)",
  decimalNumber("--statement-timeout", {
    max: MAX_STATEMENT_TIMEOUT_S,
    unit: "seconds",
    note: "0: no limit",
  }),
  DEFAULT_STATEMENT_TIMEOUT_S,
] as const;
