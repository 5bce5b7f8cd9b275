import { redactUrl } from "@assay/core";
import { CliExit, ExitCode } from "./exit-codes.js";

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
