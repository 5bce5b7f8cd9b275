import { createRequire } from "node:module";
import { Command } from "@commander-js/extra-typings";
import { registerAbandon } from "./commands/abandon.js";
import { registerBaseline } from "./commands/baseline.js";
import { registerExport } from "./commands/export.js";
import { registerMigrate } from "./commands/migrate.js";
import { registerModel } from "./commands/model.js";
import { registerPrices } from "./commands/prices.js";
import { registerProbe } from "./commands/probe.js";
import { registerProduce } from "./commands/produce.js";
import { registerPrune } from "./commands/prune.js";
import { registerReport } from "./commands/report.js";
import { registerRequests } from "./commands/requests.js";
import { registerRetry } from "./commands/retry.js";
import { registerRun } from "./commands/run.js";
import { registerShow } from "./commands/show.js";
import { registerStatus } from "./commands/status.js";
import { registerWorker } from "./commands/worker.js";
import { helpFormat } from "./help-format.js";
import { safeMessage } from "./output.js";

export function createProgram() {
  const program = new Command()
    .name("assay")
    .description(
      "Score LLM outputs at scale: deterministic checks and ONNX verifiers, results in Postgres.",
    )
    .version(packageVersion(), "-V, --version")
    .option("--debug", "print the stack trace of an error (same as ASSAY_DEBUG=1)")
    .configureHelp(helpFormat)
    .showHelpAfterError("(run with --help for usage)")
    // Usage errors quote the command line, which may hold a URL with a password.
    .configureOutput({ outputError: (text, write) => write(safeMessage(text)) })
    .exitOverride();
  registerRun(program);
  registerReport(program);
  registerShow(program);
  registerExport(program);
  registerMigrate(program);
  registerAbandon(program);
  registerBaseline(program);
  registerPrune(program);
  registerPrices(program);
  registerRequests(program);
  registerProduce(program);
  registerWorker(program);
  registerStatus(program);
  registerRetry(program);
  registerModel(program);
  registerProbe(program);
  return program;
}

function packageVersion(): string {
  // src/ and dist/ both sit next to the package's package.json.
  const pkg = createRequire(import.meta.url)("../package.json") as { version: string };
  return pkg.version;
}
