export { CliExit, ExitCode } from "./exit-codes.js";
export { createProgram } from "./program.js";
export { runCli } from "./run-cli.js";
