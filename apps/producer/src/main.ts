#!/usr/bin/env node
// Deployable producer: `assay produce` with the same arguments, e.g.
//   node apps/producer/dist/main.js data.jsonl --spec spec.yaml --run-id nightly-1 --wait
import { runCli } from "@assay/cli";
import { cliArgs } from "./cli-args.js";

process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
