import { readFileSync } from "node:fs";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { inTransaction } from "../src/in-transaction.js";
import { runnerOf, writeRollups } from "../src/reports/index.js";
import { sample, scored } from "./fixtures.js";

// Every ready query of docs/analyst-views.md runs as written, so the page cannot drift from
// the views; and the analyst role reads them and writes nothing.

const DOC = new URL("../../../docs/analyst-views.md", import.meta.url);

function readyQueries(): string[] {
  const text = readFileSync(DOC, "utf8");
  const section = text.slice(text.indexOf("## Ready queries"), text.indexOf("## Access"));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
}

describe.each(DRIVER_NAMES)("analyst views documented, on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
    const { store } = db;
    await store.startRun({ id: "docs-run", spec: { rules: [] }, transport: "local" });
    await store.insertSamples("docs-run", [sample("a", { line: 1 }), sample("b", { line: 2 })]);
    await store.writeResults([
      { score: scored("docs-run", "a", "f1", 0.6), truncations: [], usage: [] },
      { score: scored("docs-run", "b", "f1", 0.2), truncations: [], usage: [] },
    ]);
    await store.finishRun("docs-run");
    await writeRollups(driverOf(store), "docs-run");
  });
  afterAll(() => db?.dispose());

  it("has ready queries that all run", async () => {
    const queries = readyQueries();
    expect(queries.length).toBeGreaterThanOrEqual(7);
    const runner = runnerOf(driverOf(db.store));
    for (const query of queries) await runner.query(query);
    const { rows } = await runner.query<{ passed: unknown; pass_rule: string }>(
      queries[0] as string,
    );
    expect(rows.map((r) => [Number(r.passed), r.pass_rule])).toEqual([[1, "value >= 0.5"]]);
  });

  it("lets assay_analyst read the views and write nothing", async () => {
    const driver = driverOf(db.store);
    // SET LOCAL ROLE holds for the rest of that transaction only, on its one connection.
    const rows = await inTransaction(driver, async (runner) => {
      await runner.query("SET LOCAL ROLE assay_analyst");
      return (await runner.query<{ run_id: string }>("SELECT run_id FROM analyst_runs")).rows;
    });
    expect(rows.map((r) => r.run_id)).toEqual(["docs-run"]);
    await expect(
      inTransaction(driver, async (runner) => {
        await runner.query("SET LOCAL ROLE assay_analyst");
        await runner.query(
          "INSERT INTO price_versions (effective_from, currency, source) VALUES (now(), 'USD', 'x')",
        );
      }),
    ).rejects.toThrow(/permission denied/);
  });
});
