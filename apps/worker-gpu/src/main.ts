#!/usr/bin/env node
// Deployable GPU worker, one process per device: `assay worker --pool gpu --model <name>`.
// It serves the queue of one model; the scorer comes from the same registry as every worker.
import { runCli } from "@assay/cli";
import { cliArgs } from "./cli-args.js";

process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
