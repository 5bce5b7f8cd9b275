#!/usr/bin/env node
import { runCli } from "@assay/cli";
// Deployable CPU worker: `assay worker --pool cpu` with the remaining arguments.
// It runs the deterministic scorers only; nothing here loads onnxruntime.
import { limitHeapGrowth } from "@assay/core/heap";
import { cliArgs } from "./cli-args.js";

// Its live heap is small and bounded by its concurrency: a young generation free to grow
// saves it about a third of its CPU per job (see heap-growth.ts).
limitHeapGrowth({ growYoungGeneration: true });
process.exitCode = await runCli(cliArgs(process.argv.slice(2)));
