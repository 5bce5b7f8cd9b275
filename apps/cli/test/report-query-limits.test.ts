import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { cliArgs } from "@assay/test-support/built-entry";
import { processOutput } from "@assay/test-support/process-output";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A report query that runs long is made to: another session holds a lock on a table the
// report reads, so the report's query waits on the server for as long as it is held, as
// a badly planned one would run.

const schema = freshSchema();
const db = ["--db", DATABASE_URL, "--db-schema", schema];
const work = mkdtempSync(join(tmpdir(), "assay-report-limits-"));
const pool = new pg.Pool({ connectionString: DATABASE_URL });

beforeAll(async () => {
  const migrate = await assayInProcess(["migrate", ...db]);
  expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
  const data = join(work, "data.jsonl");
  writeFileSync(data, '{"id": 1, "question": "q", "answer": "a", "target": "a"}\n');
  const run = await assayInProcess(["run", data, "--run-id", "r", "--quiet", ...db]);
  expect(run.code, run.stderr).toBe(ExitCode.ok);
});

afterAll(async () => {
  await pool.end();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

/** Runs `body` while another session holds the report's rollups table locked. */
async function whileRollupsLocked<T>(body: () => Promise<T>): Promise<T> {
  const locker = await pool.connect();
  try {
    await locker.query("BEGIN");
    await locker.query(`LOCK TABLE "${schema}".run_rollups IN ACCESS EXCLUSIVE MODE`);
    return await body();
  } finally {
    await locker.query("ROLLBACK");
    locker.release();
  }
}

/** Statements on the server waiting for the lock: the report's. */
async function waitingQueries(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%run_rollups%'`,
  );
  return Number(rows[0]?.n);
}

async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a report query that runs long on Postgres", () => {
  it("is cancelled by the server past --statement-timeout, with one line and exit 5", async () => {
    const report = await whileRollupsLocked(() =>
      assayInProcess(["report", "r", "--statement-timeout", "1", ...db]),
    );
    expect(report.code, report.stderr).toBe(ExitCode.unavailable);
    const lines = report.stderr.trim().split("\n");
    expect(lines, report.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/A report query ran past --statement-timeout \(1 s\)/);
    expect(lines[0]).toMatch(/ANALYZE/);
    expect(await waitingQueries()).toBe(0);
  });

  it("is refused a timeout that is not a number of seconds", async () => {
    const report = await assayInProcess(["report", "r", "--statement-timeout", "soon", ...db]);
    expect(report.code).toBe(ExitCode.usage);
    expect(report.stderr).toMatch(/Expected --statement-timeout to be a number of seconds/);
  });

  it("is cancelled on the server when the report is interrupted", async () => {
    await whileRollupsLocked(async () => {
      const child = spawn(process.execPath, cliArgs(["report", "r", ...db]), {
        env: { ...process.env, DATABASE_URL: undefined },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on("exit", (_code, signal) => resolve(signal)),
      );
      const output = processOutput(child);
      await until(async () => (await waitingQueries()) === 1, "the report's query to wait");
      child.kill("SIGINT");
      expect(await exited).toBe("SIGINT");
      expect((await output).stderr).toMatch(/Interrupted: cancelling the queries on the server/);
      // Still locked: only a cancel ends the wait. A client that just exits leaves it.
      await until(async () => (await waitingQueries()) === 0, "the report's query to go", 10_000);
    });
  });
});
