import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import {
  expandGrafanaSql,
  loadDashboard,
  loadDatasources,
  panelQueries,
} from "./support/grafana.js";

// Each SQL panel of the dashboard, its macros expanded as Grafana expands them, run as the
// role Grafana's data source logs in as, against a store migrated and holding a real run.

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
  expect(run.code, run.stderr).toBe(0);
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

/** One panel query as Grafana sends it: macros expanded, as the data source's user. */
async function runAsGrafana(sql: string, from: Date, to: Date) {
  await client.query("BEGIN");
  try {
    await client.query(`SET LOCAL ROLE ${postgres?.user}`);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    return await client.query(expandGrafanaSql(sql, from, to));
  } finally {
    await client.query("ROLLBACK");
  }
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
