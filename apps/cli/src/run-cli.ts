import {
  AssayError,
  ConfigError,
  debugEnabled,
  InputError,
  NotFoundError,
  SpecError,
} from "@assay/core/errors";
import { isConnectionLost } from "@assay/store/connection-lost";
import { CommanderError } from "@commander-js/extra-typings";
import { CliExit, ExitCode } from "./exit-codes.js";
import { isWriteError, writeFailure } from "./out-file.js";
import { safeMessage } from "./output.js";
import { createProgram } from "./program.js";

/** Parses argv, runs the command, and maps failures to documented exit codes. */
export async function runCli(argv: string[]): Promise<number> {
  const program = createProgram();
  // Standard output redirected to a full disk or a device such as /dev/full fails a write
  // after it returned, as an 'error' event: the command then ends as a failed write
  // (exit 5) rather than on an unhandled event. A reader that went away (`| head`) is not
  // a failure.
  let stdoutFailure: unknown;
  const onStdoutError = (error: unknown): void => {
    stdoutFailure ??= error;
  };
  process.stdout.on("error", onStdoutError);
  try {
    await program.parseAsync(argv, { from: "user" });
    // The event comes a tick after the write that failed.
    await new Promise((resolve) => setImmediate(resolve));
    if (stdoutFailure !== undefined && isWriteError(stdoutFailure)) {
      throw writeFailure("to standard output", stdoutFailure);
    }
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    const debug = debugEnabled() || program.opts().debug === true;
    return reportFailure(error, debug);
  } finally {
    process.stdout.off("error", onStdoutError);
  }
}

/**
 * One line on stderr (a deliberate message, such as --strict's list of bad lines, may have
 * more) and the documented exit code. The stack trace is for developers: `ASSAY_DEBUG=1`
 * or `--debug` prints it.
 */
function reportFailure(thrown: unknown, debug: boolean): number {
  let error = thrown;
  if (error instanceof CommanderError) {
    // Commander already printed the message; help and version are not failures.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (!(error instanceof CliExit) && isWriteError(error)) {
    // A write no command caught (a model folder being written, say) still says it was the disk.
    const path = (error as { path?: unknown }).path;
    error = writeFailure(typeof path === "string" ? path : "a file", error);
  }
  if (!(error instanceof CliExit) && isConnectionLost(error)) {
    // A command that writes says how to resume (`lostDatabase`); one that only read (a
    // report, an export) is resumed by running it again.
    const reason = error instanceof Error ? error.message.replace(/\.+$/, "") : String(error);
    error = new CliExit(
      ExitCode.unavailable,
      `lost the connection to its server (${reason}): it went away or is restarting. Once it is back, run the same command again.`,
    );
  }
  const code = exitCodeOf(error);
  const raw = error instanceof Error ? error.message : String(error);
  const message = error instanceof CliExit ? raw : raw.trim().replace(/\s*[\r\n]+\s*/g, " ");
  const prefix = code === ExitCode.failure ? "unexpected failure: " : "";
  const hint = code === ExitCode.failure && !debug ? " (ASSAY_DEBUG=1 prints the stack trace)" : "";
  if (message !== "" || prefix !== "") {
    process.stderr.write(`${safeMessage(`assay: ${prefix}${message}${hint}`)}\n`);
  }
  if (debug && error instanceof Error && error.stack !== undefined) {
    process.stderr.write(`${safeMessage(error.stack)}\n`);
  }
  return code;
}

/** The documented exit code of a failure (docs/cli.md, "Exit codes"). */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliExit) return error.code;
  if (isWriteError(error) || isConnectionLost(error)) return ExitCode.unavailable;
  if (error instanceof InputError || error instanceof SpecError) return ExitCode.refused;
  // An unknown run id is the same refusal whether the CLI or a store query noticed it.
  if (error instanceof NotFoundError) return ExitCode.refused;
  if (error instanceof ConfigError) return ExitCode.unavailable;
  if (error instanceof AssayError) return ExitCode.refused;
  return ExitCode.failure;
}
