import { Command } from "commander";
import { registerExport } from "./commands/export.js";
import { registerMigrate } from "./commands/migrate.js";
import { registerReport } from "./commands/report.js";
import { registerRun } from "./commands/run.js";

export function createProgram(): Command {
  const program = new Command()
    .name("assay")
    .description("Score LLM outputs at scale: deterministic checks and ONNX verifiers, results in Postgres.")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerRun(program);
  registerReport(program);
  registerExport(program);
  registerMigrate(program);
  return program;
}
