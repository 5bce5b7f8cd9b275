#!/usr/bin/env node
// `npm run example:batch-join`: score the answers of two batch jobs (an OpenAI Batch API
// output and an Anthropic Message Batches result) against one reference dataset in Parquet
// (reference.parquet, made by make-reference.mjs), then read what each model cost per
// solved task from the analyst views (docs/analyst-views.md) in SQL.
//
//   node examples/batch-join/run-example.mjs [output folder, default .assay-batch-join]
//
// Needs a build (`npm run build`); the npm script does it first.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { runnerOf } from "@assay/store/reports";

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

// Prices go into the store first: the views price a run by the version in force when it started.
assay(["prices", "import", `${here}/prices.yaml`, "--db", store]);

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
      `${here}/reference.parquet`,
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

// The figure an analyst asks for, from the views: cost-per-solved.sql, the query docs/cli.md quotes.
// These runs planned no verifier, so their verification cost is 0 and `cost` is generation.
const COST_PER_SOLVED_BY_MODEL = readFileSync(`${here}/cost-per-solved.sql`, "utf8").trim();
process.stdout.write(`\n$ SQL on the store (${store})\n${COST_PER_SOLVED_BY_MODEL}\n\n`);
const opened = await openStore({ dataDir: store });
try {
  const { rows } = await runnerOf(driverOf(opened)).query(COST_PER_SOLVED_BY_MODEL);
  process.stdout.write(`${resultTable(rows)}\n`);
} finally {
  await opened.close();
}

/** Rows as psql prints them: a header, a rule, left-aligned text, right-aligned numbers. */
function resultTable(rows) {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (value) =>
    value === null
      ? ""
      : typeof value === "number"
        ? String(Number(value.toPrecision(6)))
        : String(value);
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  // bigint sums arrive as text: a column of numbers is one whose every cell reads as a number.
  const numeric = columns.map((_c, i) => cells.every((r) => /^-?[\d.e+-]*$/.test(r[i])));
  const line = (values, align) =>
    ` ${values.map((v, i) => (align && numeric[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(" | ")}`.trimEnd();
  return [
    line(
      columns.map((c, i) => c.padStart(Math.floor((widths[i] + c.length) / 2))),
      false,
    ),
    widths.map((w) => "-".repeat(w + 2)).join("+"),
    ...cells.map((r) => line(r, true)),
    `(${rows.length} rows)`,
  ].join("\n");
}
