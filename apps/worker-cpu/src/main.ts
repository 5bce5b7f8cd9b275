#!/usr/bin/env node
// Deployable CPU worker: `assay worker --pool cpu` with the remaining arguments.
// It runs the deterministic scorers only; nothing here loads onnxruntime.
import { runCli } from "@assay/cli";

process.exitCode = await runCli(["worker", "--pool", "cpu", ...process.argv.slice(2)]);
