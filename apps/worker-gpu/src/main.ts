#!/usr/bin/env node
// Deployable GPU worker, one process per device: `assay worker --pool gpu --model <name>`.
// It serves the queue of one model; the scorer comes from the same registry as every worker.
import { runCli } from "@assay/cli";

process.exitCode = await runCli(["worker", "--pool", "gpu", ...process.argv.slice(2)]);
