import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import {
  dashboardVariables,
  expandGrafanaSql,
  loadDashboard,
  loadDatasources,
  panelQueries,
} from "./support/grafana.js";

// Each SQL panel of the dashboard, its variables and macros expanded as Grafana expands
// them, run as the role Grafana's data source logs in as (with the server's own
// search_path: nothing set for it), against a store migrated into a schema of its own (as
// `--db-schema` makes one) and holding a real run.

const schema = freshSchema();
const work = mkdtempSync(join(tmpdir(), "assay-grafana-sql-"));
const postgres = loadDatasources().find(
  (source) => source.type === "grafana-postgresql-datasource",
);
const sqlPanels = panelQueries(loadDashboard()).filter((q) => q.datasource === postgres?.uid);
const client = new pg.Client({ connectionString: DATABASE_URL });

beforeAll(async () => {
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await store.close();
  const dataset = join(work, "nightly.jsonl");
  writeTextDataset(dataset, 20);
  const run = await startAssay([
    "run",
    dataset,
    "--run-id",
    "nightly-1",
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--quiet",
  ]).done;
  expect(run.code, run.stderr).toBe(ExitCode.ok);
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

/** `sql` run as the data source's user, in a transaction rolled back after. */
async function asAnalyst<T>(run: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    await client.query(`SET LOCAL ROLE ${postgres?.user}`);
    return await run();
  } finally {
    await client.query("ROLLBACK");
  }
}

/** One panel query as Grafana sends it: the store's schema chosen, macros expanded. */
function runAsGrafana(sql: string, from: Date, to: Date, store = schema) {
  return asAnalyst(() => client.query(expandGrafanaSql(sql, from, to, { schema: store })));
}

/** The values Grafana offers for the dashboard's `schema` variable, from its query. */
async function schemaChoices(): Promise<string[]> {
  const variable = dashboardVariables(loadDashboard()).find((v) => v.name === "schema");
  expect(variable).toMatchObject({ type: "query", datasource: { uid: postgres?.uid } });
  // One schema at a time, written as it is into the panels' SQL.
  expect(variable?.multi ?? false).toBe(false);
  expect(variable?.includeAll ?? false).toBe(false);
  const { rows } = await asAnalyst(() => client.query(variable?.query as string));
  return rows.map((row) => Object.values(row)[0] as string);
}

const lastMonth = () => [new Date(Date.now() - 30 * 86_400_000), new Date()] as const;

describe("the dashboard's SQL panels", () => {
  it("are there: pass rate, cost per solved task and the last nights", () => {
    expect(postgres?.user).toBe("assay_analyst");
    expect(sqlPanels.map((q) => q.panel)).toEqual([
      "Pass rate of the last nights",
      "Cost per solved task",
      "Last nights",
    ]);
  });

  it("offer every store's schema to choose from, this one included, and no schema without the views", async () => {
    const choices = await schemaChoices();
    expect(choices).toContain(schema);
    expect(choices).not.toContain("pg_catalog");
    expect(choices).not.toContain("information_schema");
  });

  it("each run as the read-only analyst role on a migrated store, returning the columns Grafana plots", async () => {
    for (const query of sqlPanels) {
      const result = await runAsGrafana(query.text, ...lastMonth());
      const columns = result.fields.map((field) => field.name);
      if (query.panel === "Last nights") {
        expect(columns, query.panel).toEqual(
          expect.arrayContaining(["run", "status", "pass_rate"]),
        );
      } else {
        // Grafana's time series from SQL: a time column, a metric (series name), a value.
        expect(columns, query.panel).toEqual(["time", "metric", "value"]);
      }
    }
  });

  it("show last night's run: its pass rate per scorer and its line in the table", async () => {
    const [passRate, , table] = sqlPanels;
    const rates = (await runAsGrafana(passRate?.text as string, ...lastMonth())).rows;
    expect(rates.length).toBeGreaterThanOrEqual(1);
    for (const row of rates) {
      expect(row.time).toBeInstanceOf(Date);
      expect(typeof row.metric).toBe("string");
      // writeTextDataset answers 1 line in 10 wrongly.
      expect(row.value).toBeCloseTo(0.9, 5);
    }
    const lines = (await runAsGrafana(table?.text as string, ...lastMonth())).rows;
    expect(lines.map((line) => line.run)).toContain("nightly-1");
    expect(lines.find((line) => line.run === "nightly-1")).toMatchObject({ status: "completed" });
  });

  it("leave out runs before the dashboard's time range, as Grafana's $__timeFilter does", async () => {
    const [passRate, , table] = sqlPanels;
    const before = [new Date("2020-01-01T00:00:00Z"), new Date("2020-02-01T00:00:00Z")] as const;
    expect((await runAsGrafana(passRate?.text as string, ...before)).rows).toEqual([]);
    expect((await runAsGrafana(table?.text as string, ...before)).rows).toEqual([]);
  });

  it("name the chosen schema as it is, for any name `--db-schema` accepts (reserved words included)", async () => {
    // A schema that holds no views: the query must reach the server and fail there on the
    // relation in that very schema, not on its syntax or on another schema's view.
    const name = fc.oneof(
      fc.constantFrom("select", "user", "order", "public_", "_", "analyst_runs"),
      fc.stringMatching(/^[a-z_][a-z0-9_]{0,62}$/),
    );
    const [passRate] = sqlPanels;
    await fc.assert(
      fc.asyncProperty(name, async (store) => {
        fc.pre(!(await schemaChoices()).includes(store));
        const error = await runAsGrafana(passRate?.text as string, ...lastMonth(), store).then(
          () => undefined,
          (caught: { code?: string; message?: string }) => caught,
        );
        expect(error?.code, error?.message).toBe("42P01"); // undefined_table
        expect(error?.message).toBe(`relation "${store}.analyst_runs" does not exist`);
      }),
      { numRuns: 40 },
    );
  });

  it("get from $__timeFrom() and $__timeTo() the dashboard's instants to the millisecond, for any range", async () => {
    const instant = fc.date({
      min: new Date("1970-01-01T00:00:00Z"),
      max: new Date("2100-01-01T00:00:00Z"),
      noInvalidDate: true,
    });
    await fc.assert(
      fc.asyncProperty(instant, instant, async (a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const sql = "SELECT $__timeFrom()::timestamptz AS f, $__timeTo()::timestamptz AS t";
        const { rows } = await runAsGrafana(sql, from, to);
        expect(rows[0].f.getTime()).toBe(from.getTime());
        expect(rows[0].t.getTime()).toBe(to.getTime());
      }),
      { numRuns: 100 },
    );
  });
});
