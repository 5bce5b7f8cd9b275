import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { deletePrefix, freshPrefix, REDIS_URL } from "@assay/test-support/services";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The schema a command works in comes from --db-schema or from the URL's libpq options
// (`?options=-c search_path=…`), the same for every command; a schema that is Postgres's
// own or the migration tool's is refused by every command.

const work = mkdtempSync(join(tmpdir(), "assay-schema-options-"));
const DATA = join(work, "d.jsonl");
writeFileSync(
  DATA,
  ["a", "b", "c"]
    .map((id) => JSON.stringify({ id, question: "q", answer: id, target: id }))
    .join("\n"),
);
const schema = freshSchema();
const prefix = freshPrefix();

afterAll(async () => {
  await dropSchema(schema);
  await deletePrefix(prefix);
  rmSync(work, { recursive: true, force: true });
});

describe("a postgres:// URL whose libpq options set the search_path", () => {
  it("puts every command's tables in that schema, as --db-schema would", async () => {
    const url = `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const queues = ["--redis", REDIS_URL, "--queue-prefix", prefix];
    for (const args of [
      ["migrate", "--db", url],
      ["run", DATA, "--run-id", "local", "--quiet", "--db", url],
      ["report", "local", "--json", "--db", url],
      ["export", "local", "--db", url],
      ["show", "local", "a", "--db", url],
      ["produce", DATA, "--run-id", "night", "--quiet", "--db", url, ...queues],
      ["status", "night", "--db", url, ...queues],
      ["prune", "--keep-last", "5", "--dry-run", "--db", url],
    ]) {
      const result = await assayInProcess(args);
      expect(result.code, `${args.join(" ")}\n${result.stderr}`).toBe(ExitCode.ok);
      expect(result.stderr).not.toMatch(/unexpected failure/);
    }
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT id FROM "${schema}".runs ORDER BY id`);
      expect(rows.map((row) => row.id)).toEqual(["local", "night"]);
      const applied = await client.query(
        `SELECT count(*)::int AS n FROM "${schema}".__drizzle_migrations`,
      );
      expect(applied.rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it("and a --db-schema naming another schema are refused, naming both", async () => {
    const url = `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const result = await assayInProcess([
      "report",
      "local",
      "--db",
      url,
      "--db-schema",
      "elsewhere",
    ]);
    expect(result.code).toBe(ExitCode.unavailable);
    expect(result.stderr).toMatch(
      new RegExp(`sets search_path=${schema} in its options, and --db-schema says elsewhere`),
    );
  });
});

describe("a --db-schema that is Postgres's own or the migration tool's", () => {
  it("is refused by every command that opens the store, before it touches it", async () => {
    const server = ["--db", DATABASE_URL];
    const queues = ["--redis", REDIS_URL, "--queue-prefix", prefix];
    const commands = [
      ["migrate", ...server],
      ["run", DATA, "--quiet", ...server],
      ["report", "local", ...server],
      ["export", "local", ...server],
      ["show", "local", "a", ...server],
      ["prune", "--keep-last", "5", ...server],
      ["produce", DATA, "--quiet", ...server, ...queues],
      ["status", "night", ...server, ...queues],
      ["retry", "night", ...server, ...queues],
      ["worker", "--pool", "cpu", ...server, ...queues],
    ];
    for (const reserved of ["pg_catalog", "information_schema", "pg_toast", "drizzle"]) {
      for (const args of commands) {
        const result = await assayInProcess([...args, "--db-schema", reserved]);
        const what = `${args[0]} --db-schema ${reserved}\n${result.stderr}`;
        expect(result.code, what).toBe(ExitCode.unavailable);
        expect(result.stderr, what).toMatch(
          new RegExp(`The schema \`${reserved}\` belongs to (Postgres itself|the migration tool)`),
        );
      }
    }
  });
});
