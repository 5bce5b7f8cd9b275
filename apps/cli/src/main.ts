#!/usr/bin/env node
import { limitHeapGrowth } from "@assay/core/heap";
import { runCli } from "./run-cli.js";

limitHeapGrowth();
process.exitCode = await runCli(process.argv.slice(2));
