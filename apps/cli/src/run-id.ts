import { basename, extname } from "node:path";
import { InvalidArgumentError } from "@commander-js/extra-typings";

/**
 * The one rule for run ids, on every command: letters, digits, `_`, `.`, `:` and `-`, at
 * most 200, not starting with `-` (a command line would read the id as an option).
 */
const RUN_ID = /^[A-Za-z0-9_.:][A-Za-z0-9_.:-]{0,199}$/;
/** Room left in a default id for `-<date>-<time>`. */
const MAX_NAME = 180;

/** `<dataset name>-<UTC date and time>`, e.g. `nightly-20261130-021500`; always a valid id. */
export function defaultRunId(dataset: string, now = new Date()): string {
  const name =
    basename(dataset, extname(dataset))
      .replace(/[^A-Za-z0-9_.-]+/g, "-")
      .replace(/^-+/, "")
      .slice(0, MAX_NAME) || "run";
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${name}-${stamp}`;
}

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/** Commander parser for a run id, as an option value or an argument. */
export function parseRunId(value: string): string {
  if (isRunId(value)) return value;
  throw new InvalidArgumentError(
    'Expected a run id of letters, digits, "_", ".", ":" or "-" (at most 200, not starting ' +
      `with "-"), got "${value}".`,
  );
}
