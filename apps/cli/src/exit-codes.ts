/** Process exit codes, documented in docs/cli.md ("Exit codes"). */
export const ExitCode = {
  ok: 0,
  /** Unexpected failure: a bug or a storage error mid-run. */
  failure: 1,
  /** Bad command-line usage: a bad option or value, an `--out` that cannot be written. */
  usage: 2,
  /**
   * The dataset, spec, run or store folder was refused (missing, empty, invalid, --strict
   * errors, a `--db` folder that is not a store).
   */
  refused: 3,
  /** The run completed but some lines were input errors (stored in input_errors). */
  inputErrors: 4,
  /** A service (Postgres, Redis) is unreachable, or the setup is wrong (env, metrics port). */
  unavailable: 5,
  /** A second Ctrl-C or SIGTERM while the first was still draining: stopped at once. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Thrown by commands to end with a given exit code after printing `message`. */
export class CliExit extends Error {
  override name = "CliExit";
  constructor(
    readonly code: ExitCode,
    message = "",
  ) {
    super(message);
  }
}
