#!/usr/bin/env node
// `npm run example:verifier`: make the tiny verifier, score two nights of best-of-N
// candidates with it, and compare them as a table (stdout) and as report.html.
//
//   node examples/best-of-n/run-example.mjs [output folder, default .assay-example]
//
// Needs a build (`npm run build`); the npm script does it first.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const out = resolve(process.argv[2] ?? join(root, ".assay-example"));
const store = join(out, "store");
const cli = join(root, "apps/cli/dist/main.js");
const here = "examples/best-of-n";
// Relative paths in spec.yaml (the model) and in the runs (the datasets) are from the root.
process.chdir(root);

/** Runs `assay ...`; stdout goes to `stdoutTo` (a file) or to ours. Stops on failure. */
function assay(args, stdoutTo) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    stdio: ["ignore", stdoutTo === undefined ? "inherit" : "pipe", "inherit"],
    encoding: "utf8",
  });
  if (stdoutTo !== undefined) writeFileSync(stdoutTo, result.stdout ?? "");
  if (result.status !== 0) {
    process.stderr.write(`assay ${args.join(" ")} failed (exit ${result.status})\n`);
    process.exit(result.status ?? 1);
  }
}

rmSync(store, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
/** A path as a user in the repository root would type it. */
const display = (path) => (path.startsWith(root) ? relative(root, path) || "." : path);
const shown = display(out);

// Seeded weights and a real tokenizer: its scores mean nothing, every code path is real.
// Seed 2 is picked so that the report lists an early-stop candidate; with a tiny model
// which trajectory falls is chance, not judgement.
assay(["model", "make-tiny", ".models/example-verifier", "--seed", "2"]);

for (const night of ["night-1", "night-2"]) {
  const summary = join(out, `${night}.txt`);
  assay(
    [
      "run",
      `${here}/${night}.jsonl`,
      "--spec",
      `${here}/spec.yaml`,
      "--run-id",
      night,
      "--db",
      store,
      "--quiet",
    ],
    summary,
  );
  process.stderr.write(`Scored ${night}: summary in ${display(summary)}\n`);
}

const report = [
  "report",
  "night-2",
  "--compare",
  "night-1",
  "--prices",
  `${here}/prices.yaml`,
  "--by",
  "metadata.kind",
  "--db",
  store,
];
assay(report);
assay([...report, "--format", "html", "--out", join(out, "report.html")]);
process.stderr.write(
  `\nWrote ${shown}/report.html. Look at one sample, its text and every score:\n` +
    `  npx assay show night-2 open-13#0 --db ${shown}/store\n`,
);
