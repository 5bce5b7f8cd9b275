import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYST_VIEWS_FILE, analystViewsFile } from "../src/analyst-views.js";
import { migrationsFolder } from "../src/migrations.js";

// The analyst views have one home, migrations/analyst-views.sql: every view a migrated
// store holds is defined there; a store whose views are an older version of the file gets
// the file's on its next migrate (a server's is refused until then:
// unmigrated-store.test.ts), and one a newer version wrote keeps its own.

/**
 * The text of each version of the file. A change to the file without a new version here
 * and in its first line fails below: stores would not know that they hold older views.
 */
const SHA256_OF_VERSION: Record<number, string> = {
  1: "1bf285673f874f3e0ecf09396c4d7e926c188f777cc7619b6e16a77bf695a4e6",
};

it("raises the views file's version with every change to its text", () => {
  const { version, sha256 } = analystViewsFile();
  expect(
    SHA256_OF_VERSION[version],
    `migrations/${ANALYST_VIEWS_FILE} changed: raise its version (first line) and record its sha256 here`,
  ).toBe(sha256);
});

const FILE = readFileSync(join(migrationsFolder(), ANALYST_VIEWS_FILE), "utf8");
const viewsInFile = [...FILE.matchAll(/^CREATE OR REPLACE VIEW "(\w+)"/gm)]
  .map((m) => m[1] as string)
  .sort();

// As a store migrated by an older version would hold it: another definition, same columns.
const OLDER_VIEW = `CREATE OR REPLACE VIEW "analyst_input_errors" AS
  SELECT e.run_id, e.file, e.line, e.field, 'older'::text AS message, e.created_at
  FROM input_errors e`;

describe.each(DRIVER_NAMES)("the analyst views file, on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  const viewDefinition = async (name: string): Promise<string> => {
    const rows = (await queryRows(
      db.store,
      "SELECT definition FROM pg_views WHERE schemaname = current_schema() AND viewname = $1",
      [name],
    )) as { definition: string }[];
    return rows[0]?.definition ?? "";
  };

  it("defines every view a migrated store holds", async () => {
    const rows = (await queryRows(
      db.store,
      "SELECT viewname FROM pg_views WHERE schemaname = current_schema() ORDER BY viewname",
    )) as { viewname: string }[];
    expect(viewsInFile.length).toBeGreaterThanOrEqual(11);
    expect(rows.map((r) => r.viewname)).toEqual(viewsInFile);
    const { version, sha256 } = analystViewsFile();
    expect(await queryRows(db.store, "SELECT version, sha256 FROM analyst_views_applied")).toEqual([
      { version, sha256 },
    ]);
  });

  it("counts samples without reading runs", async () => {
    // A run, so that samples has a partition to scan and runs a row to join.
    await db.store.startRun({ id: "views-run", spec: { rules: [] }, transport: "local" });
    const [plan] = (await queryRows(
      db.store,
      "EXPLAIN (FORMAT JSON) SELECT count(*) FROM analyst_samples",
    )) as { "QUERY PLAN": unknown }[];
    const text = JSON.stringify(plan?.["QUERY PLAN"]);
    expect(text).toMatch(/"Relation Name":"samples_/);
    expect(text).not.toContain('"Relation Name":"runs"');
  });

  it("replaces views older than the file on the next migrate, and only then", async () => {
    const current = await viewDefinition("analyst_input_errors");
    expect(current).toMatch(/message/);
    expect(current).not.toContain("'older'");
    await queryRows(db.store, OLDER_VIEW);
    await queryRows(
      db.store,
      "UPDATE analyst_views_applied SET version = version - 1, sha256 = 'an older version'",
    );
    await db.store.migrate();
    expect(await viewDefinition("analyst_input_errors")).toBe(current);

    // Applied once: with the file's version recorded, a migrate leaves the views alone.
    await queryRows(db.store, OLDER_VIEW);
    await db.store.migrate();
    expect(await viewDefinition("analyst_input_errors")).toContain("'older'");
  });

  it("leaves the views of a newer version alone", async () => {
    await queryRows(db.store, OLDER_VIEW);
    await queryRows(
      db.store,
      "UPDATE analyst_views_applied SET version = version + 1, sha256 = 'a newer version'",
    );
    await db.store.migrate();
    expect(await viewDefinition("analyst_input_errors")).toContain("'older'");
    expect(await queryRows(db.store, "SELECT sha256 FROM analyst_views_applied")).toEqual([
      { sha256: "a newer version" },
    ]);
  });
});
