#!/usr/bin/env node
// `npm run example:batch-join`: score the answers of two batch jobs (an OpenAI Batch API
// output and an Anthropic Message Batches result) against one reference dataset, then
// report what each cost per solved task.
//
//   node examples/batch-join/run-example.mjs [output folder, default .assay-batch-join]
//
// Needs a build (`npm run build`); the npm script does it first.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const out = resolve(process.argv[2] ?? join(root, ".assay-batch-join"));
const store = join(out, "store");
const cli = join(root, "apps/cli/dist/main.js");
const here = "examples/batch-join";
process.chdir(root);

/** Runs `assay ...` with our stdout and stderr; stops unless it exits with one of `ok`. */
function assay(args, ok = [0]) {
  process.stdout.write(`\n$ assay ${args.join(" ")}\n`);
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: "inherit" });
  if (!ok.includes(result.status)) {
    process.stderr.write(`assay ${args.join(" ")} failed (exit ${result.status})\n`);
    process.exit(result.status ?? 1);
  }
}

rmSync(store, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const jobs = [
  // OpenAI custom ids were made as task-<id>: --answers-id-prefix says so.
  { run: "openai-night", file: "openai-output.jsonl", format: "openai-batch", prefix: "task-" },
  { run: "anthropic-night", file: "anthropic-output.jsonl", format: "anthropic-batch" },
];
for (const job of jobs) {
  // Exit 4: the run completed, and the answers that did not join are listed as input errors.
  assay(
    [
      "run",
      `${here}/reference.jsonl`,
      "--spec",
      `${here}/spec.yaml`,
      "--answers",
      `${here}/${job.file}`,
      "--answers-format",
      job.format,
      ...(job.prefix === undefined ? [] : ["--answers-id-prefix", job.prefix]),
      "--run-id",
      job.run,
      "--db",
      store,
      "--quiet",
    ],
    [0, 4],
  );
  assay(["report", job.run, "--prices", `${here}/prices.yaml`, "--db", store]);
}
