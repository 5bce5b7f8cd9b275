#!/usr/bin/env node
import { runCli } from "@assay/cli";
// Deployable producer: `assay produce` with the same arguments, e.g.
//   node apps/producer/dist/main.js data.jsonl --spec spec.yaml --run-id nightly-1 --wait
import { limitHeapGrowth } from "@assay/core/heap";
import { cliArgs } from "./cli-args.js";

limitHeapGrowth();
process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
