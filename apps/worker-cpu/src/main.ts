#!/usr/bin/env node
import { runCli } from "@assay/cli";
// Deployable CPU worker: `assay worker --pool cpu` with the remaining arguments.
// It runs the deterministic scorers only; nothing here loads onnxruntime.
import { limitHeapGrowth } from "@assay/core/heap";
import { cliArgs } from "./cli-args.js";

limitHeapGrowth();
process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
