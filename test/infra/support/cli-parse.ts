import { createProgram } from "@assay/cli";
import { type CommandUnknownOpts as Command, CommanderError } from "@commander-js/extra-typings";

export interface ParsedCommand {
  /** The subcommand that would run, e.g. "worker"; absent for help and version. */
  command?: string;
  /** Its options after commander and the CLI's own value parsers (ports, devices, ids). */
  options: Record<string, unknown>;
  /** Its positional arguments. */
  args: string[];
}

/**
 * Parses `argv` with the CLI's own program exactly as `assay` would, but with every action
 * replaced, so nothing runs: unknown options, missing mandatory ones and invalid values
 * throw the CommanderError the CLI would exit with (code 2).
 */
export async function parseAssay(argv: readonly string[]): Promise<ParsedCommand> {
  const program = createProgram();
  let parsed: ParsedCommand = { options: {}, args: [] };
  for (const command of allCommands(program)) {
    command.configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (command.commands.length > 0) continue;
    command.action((...actionArgs: unknown[]) => {
      const self = actionArgs.at(-1) as Command;
      parsed = { command: self.name(), options: self.opts(), args: self.args };
    });
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    // --help and --version end the parse with exit code 0: valid, nothing to run.
    if (error instanceof CommanderError && error.exitCode === 0) return parsed;
    throw error;
  }
  return parsed;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}
