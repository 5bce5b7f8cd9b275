import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { processOutput } from "@assay/test-support/process-output";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCpuWorker, type WorkerProcess } from "../distributed/support/worker-process.js";
import { type Container, containersOf, find, loadManifests } from "./support/manifests.js";
import { ROOT } from "./support/paths.js";

// The producer Job example's container command, run as written (its /datasets volume a
// folder of the test's, its envFrom the test's servers) on a dataset with bad lines, with a
// CPU worker scoring the jobs: what the Job's pod would exit with, and so what the Job is.

const job = find(loadManifests(), "Job", "assay-produce-nightly");
const container = containersOf(job)[0] as Container;
const work = mkdtempSync(join(tmpdir(), "assay-produce-job-"));
const schema = freshSchema();
const prefix = freshPrefix();
let worker: WorkerProcess | undefined;

/** The Job's command with /datasets/... in the test's folder and the test's schema and prefix. */
function jobCommand(without: string[] = []): string[] {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  return [
    ...argv
      .filter((arg) => !without.includes(arg))
      .map((arg) => (arg === "node" ? process.execPath : arg.replace(/^\/datasets\//, `${work}/`))),
    "--db-schema",
    schema,
    "--queue-prefix",
    prefix,
  ];
}

async function runJob(without: string[] = []) {
  const [program, ...args] = jobCommand(without);
  const child = spawn(program as string, args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL, REDIS_URL },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOutput(child);
}

/** The exit codes on which the Job fails at once, without a retry (podFailurePolicy FailJob). */
function failsJobAt(): number[] {
  const rules = job.spec.podFailurePolicy.rules as {
    action: string;
    onExitCodes?: { containerName: string; operator: string; values: number[] };
  }[];
  return rules
    .filter((r) => r.action === "FailJob" && r.onExitCodes?.containerName === container.name)
    .flatMap((r) => (r.onExitCodes?.operator === "In" ? r.onExitCodes.values : []));
}

beforeAll(async () => {
  // The dataset and spec the example names, in the test's folder: lines 2-4 are bad.
  copyFileSync(join(ROOT, "examples", "bad-lines.jsonl"), join(work, "nightly.jsonl"));
  writeFileSync(
    join(work, "nightly.yaml"),
    "name: nightly\nrules: []\ndefault:\n  scorers: [{ name: exact }]\n",
  );
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await store.close();
  worker = await startCpuWorker({ redisUrl: REDIS_URL, databaseUrl: DATABASE_URL, schema, prefix });
});
afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await dropSchema(schema);
  await deletePrefix(prefix);
  rmSync(work, { recursive: true, force: true });
});

describe("the producer Job example, on a night with bad input lines", () => {
  it("completes (exit 0) as written, --allow-input-errors being the operator's choice there", async () => {
    expect(container.command).toContain("--allow-input-errors");
    const run = await runJob();
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    // The bad lines are not hidden: the summary lists them.
    expect(run.stdout).toMatch(/nightly\.jsonl:2: malformed JSON/);
  });

  it("fails at once (exit 4, FailJob: no retry) with the other choice, without the flag", async () => {
    const run = await runJob(["--allow-input-errors"]);
    expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
    expect(run.stdout).toMatch(/nightly\.jsonl:2: malformed JSON/);
    expect(failsJobAt()).toContain(4);
    // Exits that a retry may cure are left to backoffLimit.
    expect(failsJobAt()).not.toContain(5);
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
  });
});
