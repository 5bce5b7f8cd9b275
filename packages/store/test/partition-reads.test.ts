import type { JobResult, Sample } from "@assay/core";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runSummary } from "../src/queries/summary.js";
import { rawEarlyStops } from "../src/reports/early-stops.js";
import { pairedDifferences } from "../src/reports/paired-differences.js";
import { rawRunFigures } from "../src/reports/run-figures.js";
import { runTablesOf } from "../src/reports/run-tables.js";
import { runnerOf } from "../src/reports/runner-of.js";
import { sampleRecord } from "../src/reports/sample-record.js";
import { sliceReport } from "../src/reports/slice-report.js";
import { RAW_TABLES } from "../src/run-partitions.js";
import type { SqlRunner } from "../src/sql-runner.js";
import { sample, scored, startedRunId } from "./fixtures.js";

// A report of one run (or a comparison of two) reads only those runs' partitions: a query
// that reaches a raw table only through a join with `runs`, or that names its runs with
// `= ANY(...)` on one table of a join, leaves the planner unable to prune the others, and
// a year of nights makes that report read the year. Every query the raw-row report paths
// send is planned (EXPLAIN) with other runs in the store, and no plan may name another
// run's partition.

interface PlanNode {
  "Relation Name"?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

function relations(node: PlanNode, into: Set<string>): Set<string> {
  if (node["Relation Name"] !== undefined) into.add(node["Relation Name"]);
  for (const child of node.Plans ?? []) relations(child, into);
  // Init plans and CTEs hang under Plans too; nothing else holds scans.
  return into;
}

/** A runner that also plans every statement it is given, keeping the relations each reads. */
function planningRunner(base: SqlRunner, plans: { text: string; reads: Set<string> }[]): SqlRunner {
  return {
    async query(text, params = []) {
      const { rows } = await base.query<{ "QUERY PLAN": unknown }>(
        `EXPLAIN (FORMAT JSON) ${text}`,
        params,
      );
      const raw = rows[0]?.["QUERY PLAN"];
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      plans.push({ text, reads: relations(plan[0]?.Plan ?? {}, new Set()) });
      return base.query(text, params);
    },
  };
}

describe.each(DRIVER_NAMES)("raw-row reports on %s", (driver) => {
  let db: TestStore;
  const runs: string[] = [];
  beforeAll(async () => {
    db = await openTestStore(driver);
    for (let r = 0; r < 3; r += 1) {
      const runId = await startedRunId(db.store);
      const samples: Sample[] = [];
      const results: JobResult[] = [];
      for (let t = 0; t < 3; t += 1) {
        for (let c = 0; c < 2; c += 1) {
          const id = `t${t}#${c}`;
          samples.push(
            sample(id, { candidateIndex: c, line: t + 1, label: c === 0, metadata: { kind: "k" } }),
          );
          results.push({
            score: {
              ...scored(runId, id, "judge", c === 0 ? 0.9 : 0.2),
              detail: { head: "probe", family: "f", progress: [0.9, 0.5, 0.2] },
            },
            truncations: [],
            usage: [],
          });
        }
      }
      await db.store.insertSamples(runId, samples);
      await db.store.writeResults(results);
      runs.push(runId);
    }
  });
  afterAll(() => db?.dispose());

  async function partitionNames(runIds: string[]): Promise<Set<string>> {
    const rows = (await queryRows(
      db.store,
      `SELECT assay_run_partition(t, id) AS name
       FROM unnest(assay_run_partitioned_tables()) t,
            unnest(ARRAY[${runIds.map((id) => `'${id}'`).join(",")}]::text[]) id`,
    )) as { name: string }[];
    return new Set(rows.map((row) => row.name));
  }

  /** Plans every query `reads` sends, and checks each reads no partition of other runs. */
  async function expectOnly(allowed: string[], reads: (runner: SqlRunner) => Promise<void>) {
    const plans: { text: string; reads: Set<string> }[] = [];
    await reads(planningRunner(runnerOf(driverOf(db.store)), plans));
    const own = await partitionNames(allowed);
    const foreign = await partitionNames(runs.filter((id) => !allowed.includes(id)));
    expect(foreign.size).toBeGreaterThan(0);
    // The plans do read the runs' own partitions, so the check has something to see.
    expect(plans.some((plan) => [...plan.reads].some((name) => own.has(name)))).toBe(true);
    const strays = plans
      .filter(({ reads: names }) => [...names].some((name) => foreign.has(name)))
      .map(({ text }) => text.replace(/\s+/g, " ").trim().slice(0, 100));
    expect(strays).toEqual([]);
    return plans.length;
  }

  it("plans every query of a run's report, summary, slices, early stops and sample view on its partitions alone", async () => {
    const mine = runs[0] as string;
    const queries = await expectOnly([mine], async (runner) => {
      await rawRunFigures(runner, [mine]);
      await rawEarlyStops(runner, mine, { fallSteps: 2, minFall: 0.1, limit: 10 });
      await sliceReport(runner, mine, "metadata.kind");
      await sampleRecord(runner, mine, "t0#0");
      await runSummary(runner, mine);
    });
    expect(queries).toBeGreaterThan(10);
  });

  it("reads nothing, without failing, for a run with no partitions", async () => {
    const runner = runnerOf(driverOf(db.store));
    const mine = runs[0] as string;
    const setting = { fallSteps: 2, minFall: 0.1, limit: 10 };
    expect((await rawEarlyStops(runner, mine, setting)).total).toBeGreaterThan(0);
    expect(await rawEarlyStops(runner, "no-such-run", setting)).toMatchObject({
      total: 0,
      candidates: [],
    });
    const paired = await pairedDifferences(runner, mine, "no-such-run");
    expect(paired.flatMap((p) => p.counted.differences)).toEqual([]);
  });

  it("reads a run named twice once", async () => {
    const runner = runnerOf(driverOf(db.store));
    const mine = runs[0] as string;
    const once = (await rawRunFigures(runner, [mine])).get(mine);
    expect(once?.calibration?.length).toBeGreaterThan(0);
    expect((await rawRunFigures(runner, [mine, mine])).get(mine)).toEqual(once);
  });

  it("looks the runs' partitions up once for all their raw-row figures", async () => {
    const base = runnerOf(driverOf(db.store));
    const lookups: string[] = [];
    const counting: SqlRunner = {
      query(text, params) {
        if (text.includes("assay_run_partition(")) lookups.push(text);
        return base.query(text, params);
      },
    };
    await rawRunFigures(counting, runs);
    expect(lookups).toHaveLength(1);
  });

  it("gives every run id asked, of any spelling, tables that hold its own rows and no other run's", async () => {
    const runner = runnerOf(driverOf(db.store));
    // Postgres text holds no NUL; every other spelling is a run id someone could ask for.
    const unknownId = fc.string({ unit: "binary" }).filter((id) => !id.includes("\u0000"));
    const askedId = fc.oneof(fc.constantFrom(...runs), unknownId);
    await fc.assert(
      fc.asyncProperty(fc.array(askedId, { maxLength: 6 }), async (asked) => {
        const tables = await runTablesOf(runner, asked);
        expect(tables.runIds).toEqual([...new Set(asked)]);
        for (const runId of tables.runIds) {
          const own = runs.includes(runId) ? 6 : 0;
          const of = tables.of(runId);
          for (const table of ["samples", "scores"] as const) {
            const { rows } = await runner.query<{ mine: number; others: number }>(
              `SELECT count(*) FILTER (WHERE run_id = $1)::int AS mine,
                      count(*) FILTER (WHERE run_id <> $1)::int AS others FROM ${of[table]}`,
              [runId],
            );
            expect(rows[0]).toEqual({ mine: own, others: 0 });
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("names the raw tables the schema partitions by run", async () => {
    const rows = (await queryRows(db.store, "SELECT assay_run_partitioned_tables() AS tables")) as {
      tables: string[];
    }[];
    expect(rows[0]?.tables).toEqual([...RAW_TABLES]);
  });

  it("plans a comparison of two runs on their partitions alone", async () => {
    const [a, b] = runs as [string, string];
    await expectOnly([a, b], async (runner) => {
      await pairedDifferences(runner, a, b);
    });
  });
});
