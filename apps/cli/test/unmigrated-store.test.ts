import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redactUrl } from "@assay/core";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { pasteCommand } from "@assay/test-support/paste-command";
import type { AssayResult } from "@assay/test-support/run-assay";
import { DATABASE_URL, dropSchema, freshSchema, schemaExists } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A worker, producer or reader pointed at a schema whose tables are missing or behind
// stops at start with one line naming the database and the schema (exit 5), instead of
// starting and failing every job. Each check comes before Redis is contacted.

const work = mkdtempSync(join(tmpdir(), "assay-unmigrated-"));
const data = join(work, "data.jsonl");
writeFileSync(data, '{"id": 1, "question": "q", "answer": "a", "target": "a"}\n');
const schemas: string[] = [];
// Another schema of the shared test database may hold a run of a common name, and a reader
// then names that schema instead: this file's runs have names of their own.
const RUN = `unmigrated-${process.pid}-${Date.now()}`;

afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

function newSchema(): string {
  const schema = freshSchema();
  schemas.push(schema);
  return schema;
}

function expectRefusal(result: AssayResult, schema: string, state: RegExp): void {
  expect(result.code, result.stderr).toBe(ExitCode.unavailable);
  const lines = result.stderr.trim().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`The database at ${redactUrl(DATABASE_URL)}, schema ${schema},`);
  expect(lines[0]).toMatch(state);
  expect(lines[0]).toContain(
    `run \`assay migrate --db ${DATABASE_URL} --db-schema ${schema}\` first`,
  );
  expect(result.stdout).not.toMatch(/worker started/);
}

/** A CPU worker on `schema` of the test server, as an operator starts one. */
const workerOn = (schema: string, env?: NodeJS.ProcessEnv) =>
  assayInProcess(["worker", "--pool", "cpu", "--db", DATABASE_URL, "--db-schema", schema], { env });

/** Runs SQL on the test server (as an older or newer version of Assay would have); its rows. */
async function onServer<R extends pg.QueryResultRow>(
  sql: string,
  params?: unknown[],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The command the refusal says to run, as printed between backticks. */
function migrateHint(result: AssayResult): string {
  const hint = /run `([^`]+)` first/.exec(result.stderr)?.[1];
  if (hint === undefined) throw new Error(`no command in: ${result.stderr}`);
  return hint;
}

const NO_TABLES = /has no Assay tables yet/;

describe("a store without Assay's tables", () => {
  it("is refused by a worker at start, before it takes a job", async () => {
    const schema = newSchema();
    const worker = await workerOn(schema, { ASSAY_LOG_LEVEL: "info" });
    expectRefusal(worker, schema, NO_TABLES);
    // Refused without a trace: no empty schema is left behind.
    expect(await schemaExists(schema)).toBe(false);
  }, 120_000);

  it("is refused by a producer before anything is enqueued", async () => {
    const schema = newSchema();
    const produce = await assayInProcess([
      "produce",
      data,
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
    ]);
    expectRefusal(produce, schema, NO_TABLES);
    expect(await schemaExists(schema)).toBe(false);
  });

  it("is refused by every command that reads or writes it", async () => {
    const schema = newSchema();
    const db = ["--db", DATABASE_URL, "--db-schema", schema];
    for (const args of [
      ["run", data, "--run-id", RUN, ...db],
      ["report", RUN, ...db],
      ["export", RUN, ...db],
      ["show", RUN, "1", ...db],
      ["status", RUN, ...db],
      ["retry", RUN, ...db],
    ]) {
      expectRefusal(await assayInProcess(args), schema, NO_TABLES);
    }
  });
});

describe("the command a refusal names", () => {
  it("migrates the same store when pasted into a shell, and the refused run then goes through", async () => {
    const schema = newSchema();
    const args = ["run", data, "--run-id", RUN, "--db", DATABASE_URL, "--db-schema", schema];
    const refused = await assayInProcess(args);
    expectRefusal(refused, schema, NO_TABLES);
    const pasted = await pasteCommand(migrateHint(refused));
    expect(pasted.code, pasted.stderr).toBe(ExitCode.ok);
    const again = await assayInProcess(args);
    expect(again.code, again.stderr).toBe(ExitCode.ok);
  });
});

describe("a store migrations behind this version", () => {
  it("is refused by a worker, naming how far behind it is", async () => {
    const schema = newSchema();
    const migrate = await assayInProcess(["migrate", "--db", DATABASE_URL, "--db-schema", schema]);
    expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
    // As if the store were last migrated by the version before.
    await onServer(
      `DELETE FROM "${schema}".__drizzle_migrations
       WHERE created_at = (SELECT max(created_at) FROM "${schema}".__drizzle_migrations)`,
    );
    const worker = await workerOn(schema);
    expectRefusal(worker, schema, /is 1 migration\(s\) behind this version/);
  }, 120_000);
});

describe("a store whose analyst views are older than this version's", () => {
  it("is refused by a worker, and the pasted migrate brings the views up to date", async () => {
    const schema = newSchema();
    const migrate = await assayInProcess(["migrate", "--db", DATABASE_URL, "--db-schema", schema]);
    expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
    const messageColumn = async () =>
      (
        await onServer<{ definition: string }>(
          "SELECT definition FROM pg_views WHERE schemaname = $1 AND viewname = 'analyst_input_errors'",
          [schema],
        )
      )[0]?.definition;
    // As if an older version had written the views: another definition and its sha256.
    await onServer(
      `CREATE OR REPLACE VIEW "${schema}".analyst_input_errors AS
       SELECT e.run_id, e.file, e.line, e.field, 'older'::text AS message, e.created_at
       FROM "${schema}".input_errors e;
       UPDATE "${schema}".analyst_views_applied SET version = version - 1, sha256 = 'older'`,
    );
    const worker = await workerOn(schema);
    expectRefusal(worker, schema, /has analyst views older than this version's/);
    const pasted = await pasteCommand(migrateHint(worker));
    expect(pasted.code, pasted.stderr).toBe(ExitCode.ok);
    expect(await messageColumn()).toMatch(/e\.message/);

    // Views a newer version wrote are no reason to refuse this one (a rolling upgrade):
    // the command gets as far as the run it was asked for.
    await onServer(
      `UPDATE "${schema}".analyst_views_applied SET version = version + 1, sha256 = 'newer'`,
    );
    const report = await assayInProcess([
      "report",
      RUN,
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
    ]);
    expect(report.code, report.stderr).toBe(ExitCode.refused);
    expect(report.stderr).toContain(`"${RUN}"`);
    expect(report.stderr).not.toMatch(/analyst views/);
  }, 120_000);
});
