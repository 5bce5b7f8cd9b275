import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay prices import` and the pass rule of a spec, end to end: what the report prints is
// what the analyst views read.

const schema = freshSchema();
const db = ["--db", DATABASE_URL, "--db-schema", schema];
const work = mkdtempSync(join(tmpdir(), "assay-prices-"));
const pool = new pg.Pool({ connectionString: DATABASE_URL });
const file = (name: string, text: string) => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};
const query = async (sql: string) =>
  ((await pool.query(`SET search_path TO "${schema}"; ${sql}`)) as unknown as pg.QueryResult[])[1]
    ?.rows ?? [];

beforeAll(async () => {
  expect((await assayInProcess(["migrate", ...db])).code).toBe(ExitCode.ok);
  const lines = [
    { id: "a", question: "q", answer: "red apple", target: "red apple" },
    { id: "b", question: "q", answer: "red", target: "red apple" },
    { id: "c", question: "q", answer: "blue", target: "red apple" },
  ];
  const data = file("data.jsonl", lines.map((l) => JSON.stringify(l)).join("\n"));
  const spec = file(
    "spec.yaml",
    "default: { scorers: [{ name: f1 }] }\npass: { scorers: { f1: 1 }, solved_by: f1 }\n",
  );
  const run = await assayInProcess([
    "run",
    data,
    "--spec",
    spec,
    "--run-id",
    "r1",
    "--quiet",
    ...db,
  ]);
  expect(run.code, run.stderr).toBe(ExitCode.ok);
});

afterAll(async () => {
  await pool.end();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

describe("assay prices import", () => {
  it("refuses a bad table naming the field, and stores nothing", async () => {
    const bad = file("bad.yaml", "models:\n  gen: { input_per_million: -1 }\n");
    const result = await assayInProcess(["prices", "import", bad, ...db]);
    expect(result.code).toBe(ExitCode.refused);
    expect(result.stderr).toContain("bad.yaml");
    expect(result.stderr).toContain("models.gen.input_per_million");
    expect(await query("SELECT * FROM price_versions")).toEqual([]);
  });

  it("refuses an --effective that is not a date (bad usage)", async () => {
    const prices = file("p.yaml", "models:\n  gen: { input_per_million: 1 }\n");
    const result = await assayInProcess(["prices", "import", prices, "--effective", "soon", ...db]);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain("--effective");
  });

  it("stores each import as a new version", async () => {
    const prices = file(
      "p.yaml",
      "models:\n  gen: { input_per_million: 1, cache_write_per_million: 2 }\n",
    );
    for (const effective of ["2026-01-01", "2026-02-01"]) {
      const result = await assayInProcess([
        "prices",
        "import",
        prices,
        "--effective",
        effective,
        ...db,
      ]);
      expect(result.code, result.stderr).toBe(ExitCode.ok);
    }
    const versions = await query(
      "SELECT v.version, v.source, p.cache_write_per_million FROM price_versions v JOIN prices p USING (version) ORDER BY version",
    );
    expect(versions).toEqual([
      { version: 1, source: prices, cache_write_per_million: 2 },
      { version: 2, source: prices, cache_write_per_million: 2 },
    ]);
  });

  it("gives the views the report's solved tasks and pass rule", async () => {
    const report = await assayInProcess(["report", "r1", "--json", ...db]);
    expect(report.code, report.stderr).toBe(ExitCode.ok);
    const { report: figures } = JSON.parse(report.stdout);
    const [run] = await query("SELECT solved, tasks FROM analyst_runs WHERE run_id = 'r1'");
    const [f1] = await query(
      "SELECT passed, pass_rule FROM analyst_scorer_results WHERE run_id = 'r1'",
    );
    // Only `a` scores f1 = 1; `b` (0.67) would pass at the default 0.5.
    expect(f1).toEqual({ passed: "1", pass_rule: "value >= 1" });
    expect(run).toEqual({ solved: "1", tasks: "3" });
    expect(figures.solved).toEqual({ decidedBy: "pass_rule", tasks: 3, solved: 1 });
    expect(figures.scorerPasses[0]).toMatchObject({
      rule: "value >= 1",
      passed: { count: 1, of: 3 },
    });
  });
});
