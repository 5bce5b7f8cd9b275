import { redactUrl } from "@assay/core";
import { InvalidArgumentError } from "commander";
import { CliExit, ExitCode } from "./exit-codes.js";

/** Seconds a report query may run on a Postgres server unless `--statement-timeout` says. */
export const DEFAULT_STATEMENT_TIMEOUT_S = 300;

/** `--statement-timeout <seconds>`, in the style of the report's other options. */
export const STATEMENT_TIMEOUT_OPTION = [
  "--statement-timeout <seconds>",
  "Postgres cancels a report query that runs longer than this (0: no limit)",
  (value: string): number => {
    const seconds = Number(value);
    if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds;
    throw new InvalidArgumentError(
      `Expected --statement-timeout to be a number of seconds from 0 up (0: no limit), got "${value}".`,
    );
  },
  DEFAULT_STATEMENT_TIMEOUT_S,
] as const;

const QUERY_CANCELED = "57014";

/**
 * Exit 5 naming the limit and what to do, when `error` is the server cancelling a query
 * that ran past the statement timeout; any other error is returned as it is.
 */
export function statementTimedOut(
  error: unknown,
  seconds: number,
  databaseUrl: string | undefined,
): unknown {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== QUERY_CANCELED || !String(message).includes("statement timeout")) return error;
  const server = databaseUrl === undefined ? "Postgres" : `Postgres at ${redactUrl(databaseUrl)}`;
  return new CliExit(
    ExitCode.unavailable,
    `A report query ran past --statement-timeout (${seconds} s) and ${server} cancelled it. ` +
      "Tables the server has not analysed make it choose slow plans: a run analyses what it " +
      "wrote when it completes, or run ANALYZE on the store's tables. To wait longer, pass " +
      "--statement-timeout <seconds> (0: no limit).",
  );
}
