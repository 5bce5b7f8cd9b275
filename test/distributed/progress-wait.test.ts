import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { builtCli } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
} from "@assay/test-support/services";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTextDataset } from "./support/dataset.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

const MAIN = builtCli();
const RUN = "progress";
const SAMPLES = 3000;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample
const LOST = 20;

/** The built `assay`, as an operator runs it, with stderr a pipe (a log, not a terminal). */
function assay(args: string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, DATABASE_URL: undefined },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOutput(child);
}

/** Every rate a progress line showed, in results per second. */
function ratesShown(stderr: string): number[] {
  return [...stderr.matchAll(/(\d+)(?: results)?\/s/g)].map((match) => Number(match[1]));
}

const finalLine = (stored: number) =>
  new RegExp(
    `\\ndone: ${stored}/${PLANNED} results stored: ${stored} scored, 0 unscored, 0 input errors; ` +
      "\\d+s elapsed, mean (\\d+|–) results/s\\n",
  );

describe("the progress of produce --wait and retry --wait", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-progress-wait-"));
  const dataset = join(dir, "night.jsonl");
  const queues = ["--db", DATABASE_URL, "--db-schema", schema];
  queues.push("--redis", REDIS_URL, "--queue-prefix", prefix);
  let admin: pg.Client;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    writeTextDataset(dataset, SAMPLES);
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
    worker = await startCpuWorker({
      redisUrl: REDIS_URL,
      databaseUrl: DATABASE_URL,
      schema,
      prefix,
    });
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await admin?.end();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the read at once, then results of the plan, and ends with the final counts", async () => {
    const produced = await assay(["produce", dataset, "--run-id", RUN, ...queues, "--wait"]);
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    const lines = produced.stderr.split("\n");
    const firstRead = lines.findIndex((line) =>
      /^reading dataset 0% \(0 B of [\d.]+ kB\): 0 jobs enqueued, 0 input errors/.test(line),
    );
    const enqueued = lines.findIndex((line) => line.startsWith(`Enqueued ${PLANNED} jobs`));
    expect(firstRead, produced.stderr).toBeGreaterThanOrEqual(0);
    expect(firstRead).toBeLessThan(enqueued);
    expect(produced.stderr).toMatch(finalLine(PLANNED));
    // Nothing after the final line but the summary on stdout.
    expect(lines.filter((line) => line !== "").at(-1)).toMatch(/^done: /);
  });

  it("measures retry's rate over the results it waits for, not those stored before", async () => {
    const lost = await admin.query(
      `DELETE FROM "${schema}".scores WHERE run_id = $1 AND scorer = 'f1' AND sample_id IN (
         SELECT sample_id FROM "${schema}".scores WHERE run_id = $1 AND scorer = 'f1'
         ORDER BY sample_id LIMIT ${LOST})`,
      [RUN],
    );
    expect(lost.rowCount).toBe(LOST);
    const retried = await assay(["retry", RUN, ...queues, "--wait"]);
    expect(retried.code, retried.stderr).toBe(ExitCode.ok);
    expect(retried.stderr).toContain(`${LOST} missing results enqueued`);
    // The store is polled a second apart at most this often, and only LOST results come.
    for (const rate of ratesShown(retried.stderr)) expect(rate).toBeLessThanOrEqual(LOST);
    expect(retried.stderr).toMatch(finalLine(PLANNED));
  });
});
