#!/usr/bin/env node
import { runCli } from "@assay/cli";
// Deployable GPU worker, one process per device: `assay worker --pool gpu --model <name>`.
// It serves the queue of one model; the scorer comes from the same registry as every worker.
import { limitHeapGrowth } from "@assay/core/heap";
import { cliArgs } from "./cli-args.js";

limitHeapGrowth();
process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
