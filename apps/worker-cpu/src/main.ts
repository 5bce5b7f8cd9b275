#!/usr/bin/env node
// Deployable CPU worker: `assay worker --pool cpu` with the remaining arguments.
// It runs the deterministic scorers only; nothing here loads onnxruntime.
import { runCli } from "@assay/cli";
import { cliArgs } from "./cli-args.js";

process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
