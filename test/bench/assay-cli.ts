import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type MeasuredProcess, measureProcess } from "./bench-util.js";

/** The built CLI the benches time, as a user runs it. */
export const CLI = "apps/cli/dist/main.js";

/** `node` arguments that have a timed child report its garbage-collection pauses. */
export const GC_PAUSES = ["--import", fileURLToPath(new URL("./gc-pauses.mjs", import.meta.url))];

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
}

/**
 * Times `assay run <dataset> <args> --quiet --json` and returns its JSON summary; a run
 * that fails throws with its stderr. `nodeArgs` go to node before the CLI.
 */
export async function timeAssayRun(
  dataset: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<{ run: MeasuredProcess; summary: Record<string, number> }> {
  const run = await measureProcess("node", [
    ...nodeArgs,
    CLI,
    "run",
    dataset,
    ...args,
    "--quiet",
    "--json",
  ]);
  if (run.exitCode !== 0) {
    throw new Error(`assay run ${dataset} failed (${run.exitCode}):\n${run.stderr}`);
  }
  return { run, summary: JSON.parse(run.stdout) as Record<string, number> };
}

/** A new, migrated database `name` on the Postgres server at `serverUrl`; returns its URL. */
export async function freshPostgres(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const migrated = await measureProcess("node", [CLI, "migrate", "--db", url.toString()]);
  if (migrated.exitCode !== 0) throw new Error(`assay migrate failed:\n${migrated.stderr}`);
  return url.toString();
}

/** The kinds of generated sample the benches route, each to one deterministic scorer. */
const RULES = {
  mcq: "{ name: mcq, when: { metadata.kind: mcq }, scorers: [{ name: choice }] }",
  num: "{ name: num, when: { metadata.kind: num }, scorers: [{ name: numeric }] }",
  short: "{ name: short, when: { metadata.kind: short }, scorers: [{ name: exact }] }",
  long: "{ name: long, when: { metadata.kind: long }, scorers: [{ name: f1 }] }",
};

/** Writes a spec named `name` that routes each of `kinds` by `metadata.kind`. */
export function writeKindSpec(path: string, name: string, kinds: (keyof typeof RULES)[]): void {
  const rules = kinds.map((kind) => `  - ${RULES[kind]}\n`).join("");
  writeFileSync(path, `name: ${name}\nrules:\n${rules}`);
}

/** A multiple-choice sample, item `i`, for the `mcq` rule of `writeKindSpec`. */
export function mcqSample(i: number): Record<string, unknown> {
  return {
    id: `s${i}`,
    question: `Which option is correct for item ${i}?`,
    answer: `After some thought, the answer is (${"ABCD"[i % 4]}).`,
    target: "ABCD"[(i >> 2) % 4],
    metadata: { kind: "mcq", choices: ["red", "green", "blue", "yellow"] },
  };
}
