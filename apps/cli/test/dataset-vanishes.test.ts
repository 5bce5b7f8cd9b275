import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEnv } from "@assay/core";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A dataset deleted after `assay produce` checked it but before it read it. The run must not be
// registered without its dataset: the file is held open from the check on, so the run
// reads it whole. To make that window deterministic, the test locks the `runs` table, waits
// until the command is blocked on it (it has checked the dataset by then), deletes the file
// and lets the command go on.
const work = mkdtempSync(join(tmpdir(), "assay-vanishes-"));
const schema = freshSchema();
const prefix = `assay-test-${randomUUID().slice(0, 8)}`;
const url = `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;

beforeAll(async () => {
  await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
});
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropSchema(schema);
  await deleteQueues(prefix);
});

it("a dataset deleted between its check and its read is still read whole", async () => {
  const dataset = join(work, "leaving.jsonl");
  const ids = ["a", "b", "c"];
  const lines = ids.map((id) => JSON.stringify({ id, question: "q", answer: id, target: [id] }));
  writeFileSync(dataset, `${lines.join("\n")}\n`);

  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE");
    const run = assayInProcess([
      "produce",
      dataset,
      "--run-id",
      "leaving",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--queue-prefix",
      prefix,
    ]);
    await waitUntilBlocked(locker);
    unlinkSync(dataset);
    expect(existsSync(dataset)).toBe(false);
    await locker.query("COMMIT");
    const result = await run;

    expect(result.code, result.stderr).toBe(ExitCode.ok);
    expect(result.stderr).toMatch(/Enqueued 6 jobs for 3 samples/);
    const runs = await locker.query("SELECT id, planned_results FROM runs");
    expect(runs.rows).toEqual([{ id: "leaving", planned_results: "6" }]);
    const samples = await locker.query("SELECT sample_id FROM samples ORDER BY sample_id");
    expect(samples.rows.map((row) => row.sample_id)).toEqual(ids);
  } finally {
    await locker.end();
  }
});

/** Until another session waits for a lock on the `runs` table (minutes on a busy machine). */
async function waitUntilBlocked(client: pg.Client): Promise<void> {
  for (const deadline = Date.now() + 240_000; Date.now() < deadline; ) {
    const { rows } = await client.query(
      "SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'runs'::regclass",
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the command never reached the runs table");
}

/** Deletes the test's queues from Redis. */
async function deleteQueues(prefix: string): Promise<void> {
  const redis = new Redis(readEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
