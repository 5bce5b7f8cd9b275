import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { writeNightlyDataset } from "@assay/test-support/nightly-dataset";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// Every command that opens the store takes --db-schema: a schema produced into can be
// migrated, run into, reported on, exported and shown. The server's autovacuum is off for
// the schema's tables, so only the runs themselves can give the planner statistics.

const TASKS = 300;
const schema = freshSchema();
const work = mkdtempSync(join(tmpdir(), "assay-db-schema-"));
const db = ["--db", DATABASE_URL, "--db-schema", schema];
const pool = new pg.Pool({ connectionString: DATABASE_URL });

const dataset = (night: number): string => writeNightlyDataset(work, night, TASKS);

async function partitionOf(table: string, runId: string): Promise<string> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT "${schema}".assay_run_partition($1, $2) AS name`,
    [table, runId],
  );
  return rows[0]?.name ?? "";
}

async function tableStats(table: string): Promise<{ analysed: boolean; reltuples: number }> {
  const { rows } = await pool.query<{ last: Date | null; reltuples: number }>(
    `SELECT s.last_analyze AS last, c.reltuples
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = $1 AND s.relname = $2`,
    [schema, table],
  );
  return { analysed: rows[0]?.last != null, reltuples: Number(rows[0]?.reltuples) };
}

beforeAll(async () => {
  const migrate = await assayInProcess(["migrate", ...db]);
  expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
  expect(migrate.stderr).toContain(`Migrations applied (postgres, schema ${schema})`);
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  expect(rows.map((r) => r.name)).toContain("scores");
  // The partitioned parents take no storage parameters (autovacuum never analyses them);
  // each run's partitions are made as the run starts.
  const { rows: plain } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  for (const { name } of plain) {
    await pool.query(`ALTER TABLE "${schema}"."${name}" SET (autovacuum_enabled = false)`);
  }
  writeFileSync(
    join(work, "spec.yaml"),
    "default:\n  scorers: [{ name: exact }, { name: f1 }]\nselection: { verifier: f1 }\n",
  );
  for (const night of [1, 2]) {
    const run = await assayInProcess([
      "run",
      dataset(night),
      "--spec",
      join(work, "spec.yaml"),
      "--run-id",
      `night-${night}`,
      "--quiet",
      ...db,
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
  }
});

afterAll(async () => {
  await pool.end();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

describe("a run into a schema of a server that never analyses on its own", () => {
  it("leaves the planner statistics of what it wrote, its selections and rollups", async () => {
    // Of the partitioned raw tables, each run's own partitions (reports name their run).
    for (const night of [1, 2]) {
      for (const table of ["samples", "scores", "selections"]) {
        expect((await tableStats(await partitionOf(table, `night-${night}`))).analysed).toBe(true);
      }
      // Two candidates per task, scored by exact and f1; one selection per task.
      const scores = await tableStats(await partitionOf("scores", `night-${night}`));
      expect(scores.reltuples).toBe(TASKS * 2 * 2);
      const selections = await tableStats(await partitionOf("selections", `night-${night}`));
      expect(selections.reltuples).toBe(TASKS);
    }
    expect((await tableStats("run_rollups")).analysed).toBe(true);
  });

  it("is reported, compared, exported and shown from that schema", async () => {
    const report = await assayInProcess([
      "report",
      "night-2",
      "--compare",
      "night-1",
      "--json",
      ...db,
    ]);
    expect(report.code, report.stderr).toBe(ExitCode.ok);
    const parsed = JSON.parse(report.stdout) as {
      comparison: { differences: { metric: string; n: number }[] };
    };
    const metrics = parsed.comparison.differences.map((d) => d.metric);
    expect(metrics).toEqual(["pass@1", "selected", "oracle", "exact", "f1"]);

    const exported = await assayInProcess(["export", "night-1", ...db]);
    expect(exported.code, exported.stderr).toBe(ExitCode.ok);
    expect(exported.stdout.trim().split("\n")).toHaveLength(TASKS * 2 * 2);

    const shown = await assayInProcess(["show", "night-1", "t7#0", "--json", ...db]);
    expect(shown.code, shown.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(shown.stdout)).toMatchObject({ dataset: { answer: "city 7", line: 8 } });
  });

  it("lists --db-schema in the help of every command that opens the store", async () => {
    for (const command of ["migrate", "run", "report", "show", "export", "produce", "worker"]) {
      const help = await assayInProcess([command, "--help"]);
      expect(help.stdout, command).toMatch(/--db-schema <name>/);
    }
  });
});
