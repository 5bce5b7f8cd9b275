import { AssayError, ConfigError, InputError, SpecError } from "@assay/core";
import { CommanderError } from "commander";
import { CliExit, ExitCode } from "./exit-codes.js";
import { createProgram } from "./program.js";

/** Parses argv, runs the command, and maps failures to documented exit codes. */
export async function runCli(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed the message; help and version are not failures.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  const code = exitCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (message !== "") process.stderr.write(`assay: ${message}\n`);
  if (code === ExitCode.failure && error instanceof Error && error.stack !== undefined) {
    process.stderr.write(`${error.stack}\n`);
  }
  return code;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CliExit) return error.code;
  if (error instanceof InputError || error instanceof SpecError) return ExitCode.refused;
  if (error instanceof ConfigError) return ExitCode.unavailable;
  if (error instanceof AssayError) return ExitCode.refused;
  return ExitCode.failure;
}
