import { maskSecrets, redactUrl } from "@assay/core";
import { isConnectionLost } from "@assay/store";
import { CliExit, ExitCode } from "./exit-codes.js";

/**
 * The error a command ends with when `error` says its Postgres server went away mid-command
 * (killed, restarting, the network gone): exit 5, naming the server, the cause and how to
 * go on (`resume`, e.g. "rerun with --run-id nightly"). Any other error is returned as it is.
 */
export function lostDatabase(
  error: unknown,
  databaseUrl: string | undefined,
  resume: string,
): unknown {
  if (databaseUrl === undefined || !isConnectionLost(error)) return error;
  const reason = maskSecrets(error instanceof Error ? error.message : String(error), [databaseUrl]);
  return new CliExit(
    ExitCode.unavailable,
    `lost the connection to Postgres at ${redactUrl(databaseUrl)} (${reason.replace(/\.+$/, "")}). ` +
      `What was stored stays stored; once the server is back, ${resume}.`,
  );
}
