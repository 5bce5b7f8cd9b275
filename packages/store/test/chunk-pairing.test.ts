import { propertyRuns } from "@assay/test-support/property-runs";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { openStore } from "../src/open-store.js";
import { pairedDifferences, runnerOf } from "../src/reports/index.js";
import type { Store } from "../src/store.js";
import { migrationsUpTo } from "./migrations-up-to.js";

// Two runs of more tasks than the comparison looks at first (16 chunks of 1,024) and than
// MOMENTS_FROM sums from (20,000), so each way a scorer's pairing can go is taken.
const TASKS = 24_000;
const LOOKED_AT = 16 * 1024;

let schema: string;
let store: Store;
let pool: pg.Pool;

// Every value a multiple of 1/1024, so every sum is exact in float8 whatever order the
// database adds in: the chunks' figures must equal the raw rows' to the last bit.
const continuous = (run: number) => `(hashint8(i::bigint * 10 + ${run}) & 1023) / 1024.0`;

/** Runs a and b (b a day later), each with its raw rows; partitions made as runs make them. */
async function seed(pool: pg.Pool): Promise<void> {
  for (const [r, id] of ["a", "b"].entries()) {
    await pool.query(
      `INSERT INTO runs (id, name, spec, transport, created_at)
       VALUES ($1, 'nightly', '{}', 'local', now() - make_interval(days => 2 - $2))`,
      [id, r],
    );
    await pool.query("SELECT assay_create_run_partitions($1)", [id]);
    // Task ids in number order as text, so task_keys numbers them 0, 1, 2, ...: the first
    // LOOKED_AT tasks are the chunks the comparison looks at first.
    await pool.query(
      `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
       SELECT $1, 's' || i, 't' || lpad(i::text, 6, '0'), 0, i, '{}'
       FROM generate_series(0, $2 - 1) i`,
      [id, TASKS],
    );
    const scores = `
      INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
      SELECT $1, 's' || i, $2, 'default', 'scored', v FROM (
        SELECT i, CASE $2
          -- Five levels: at most nine distinct differences, counted.
          WHEN 'graded' THEN ((i + ${r}) % 5) / 4.0
          -- The same in both runs over the tasks looked at first, continuous after them.
          WHEN 'late' THEN CASE WHEN i < ${LOOKED_AT} THEN 0.5 ELSE ${continuous(r)} END
          -- Continuous from the first task on.
          WHEN 'continuous' THEN ${continuous(r)}
          -- Continuous, but on fewer tasks than MOMENTS_FROM sums: counted.
          WHEN 'few tasks' THEN CASE WHEN i < 9000 THEN ${continuous(r)} END
        END AS v
        FROM generate_series(0, $3 - 1) i
        -- Run b lacks a task in seven (a null slot in its chunks), run a the last hundred.
        WHERE NOT ($1 = 'b' AND i % 7 = 3) AND NOT ($1 = 'a' AND i >= $3 - 100)) t
      WHERE v IS NOT NULL`;
    for (const scorer of ["graded", "late", "continuous", "few tasks"]) {
      await pool.query(scores, [id, scorer, TASKS]);
    }
    await pool.query(
      `INSERT INTO selections (run_id, task_id, method, candidates, selected_index, tie,
                               first_correct, any_correct, selected_correct, detail)
       SELECT $1, 't' || lpad(i::text, 6, '0'), 'argmax', 1,
              CASE WHEN i % 11 = 0 THEN NULL ELSE 0 END, false,
              (i + $2) % 2 = 0, (i + $2) % 3 <> 0, (i * $2) % 5 = 0, '{}'
       FROM generate_series(0, $3 - 1) i
       WHERE NOT ($1 = 'b' AND i % 13 = 0)`,
      [id, r, TASKS],
    );
  }
}

beforeAll(async () => {
  schema = freshSchema();
  store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  await seed(pool);
});

afterAll(async () => {
  await pool?.end();
  await store?.close();
  if (schema !== undefined) await dropSchema(schema);
});

const ACCURACY_COLUMNS = [
  ["pass@1", "first_correct"],
  ["selected", "CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END"],
  ["oracle", "any_correct"],
] as const;

/** One accuracy's differences of b against a, counted one paired task at a time. */
async function taskByTask(column: string) {
  const countable = (t: string) =>
    `${t}.first_correct IS NOT NULL AND ${t}.any_correct IS NOT NULL
     AND (${t}.selected_index IS NULL OR ${t}.selected_correct IS NOT NULL)`;
  const side = (t: string) => `(SELECT ${column} FROM selections s WHERE s.run_id = ${t}.run_id
                                AND s.task_id = ${t}.task_id)::int`;
  const { rows } = await pool.query<{ value: number; count: number; b: number; a: number }>(
    `SELECT ${side("x")} - ${side("y")} AS value, count(*)::int AS count,
            sum(${side("x")})::int AS b, sum(${side("y")})::int AS a
     FROM selections x JOIN selections y ON y.task_id = x.task_id
     WHERE x.run_id = 'b' AND y.run_id = 'a' AND ${countable("x")} AND ${countable("y")}
     GROUP BY 1 ORDER BY 1`,
  );
  return {
    currentSum: rows.reduce((sum, r) => sum + r.b, 0),
    baselineSum: rows.reduce((sum, r) => sum + r.a, 0),
    differences: rows.map(({ value, count }) => ({ value, count })),
  };
}

describe("pairing two runs' task rollup chunks", () => {
  it("gives exactly what the raw rows give, however a scorer's first chunks lean", async () => {
    const runner = runnerOf(driverOf(store));
    const raw = await pairedDifferences(runner, "b", "a", "raw rows");
    const byMetric = new Map(raw.map((d) => [d.metric, d.counted]));
    // The raw rows sum the continuous scorers and count the others; so must the chunks.
    expect(byMetric.get("graded")?.squareSum).toBeUndefined();
    expect(byMetric.get("few tasks")?.squareSum).toBeUndefined();
    expect(byMetric.get("few tasks")?.differences.length).toBeGreaterThan(32);
    expect(byMetric.get("late")?.squareSum).toBeGreaterThan(0);
    expect(byMetric.get("continuous")?.squareSum).toBeGreaterThan(0);

    await store.writeRollups("a");
    await store.writeRollups("b");
    // Over the chunks looked at first, "late" has one difference (0): it is summed only
    // because the whole is counted after them, the slow way this test is here to check.
    const { rows: looked } = await pool.query(
      `SELECT count(DISTINCT s.x - s.y)::int AS distinct
       FROM task_rollup_chunks a JOIN task_rollup_chunks b USING (kind, figure, chunk)
       CROSS JOIN LATERAL unnest(a.slots, b.slots) AS s(x, y)
       WHERE a.run_id = 'b' AND b.run_id = 'a' AND a.figure = 'late' AND a.chunk < 16
         AND s.x IS NOT NULL AND s.y IS NOT NULL`,
    );
    expect(looked).toEqual([{ distinct: 1 }]);

    const fromChunks = await pairedDifferences(runner, "b", "a", "task rollups");
    expect(fromChunks).toEqual(raw);
    // Both count accuracy through the same grouping by the tasks' bits: checked here against
    // a task-by-task count that shares none of it.
    for (const [metric, column] of ACCURACY_COLUMNS) {
      const counted = fromChunks.find((d) => d.metric === metric)?.counted;
      expect({ metric, ...counted }).toEqual({ metric, ...(await taskByTask(column)) });
    }
    // b's completion counted its comparison with a, the run before it, the same way.
    expect(await pairedDifferences(runner, "b", "a", "comparison rollups")).toEqual(raw);
    // The other way round, paired from the chunks now (nobody counted it).
    expect(await pairedDifferences(runner, "a", "b", "task rollups")).toEqual(
      await pairedDifferences(runner, "a", "b", "raw rows"),
    );
  });
});

describe("migration 0025", () => {
  it("writes the chunks of runs rolled up before it, which then pair as their raw rows", async () => {
    const old = freshSchema();
    const oldPool = new pg.Pool({
      connectionString: DATABASE_URL,
      options: `-c search_path=${old}`,
    });
    let migrated: Store | undefined;
    try {
      await oldPool.query(`CREATE SCHEMA ${old}`);
      await migrate(drizzle(oldPool), {
        migrationsFolder: migrationsUpTo(24),
        migrationsSchema: old,
      });
      await seed(oldPool);
      // Both rolled up with their task rollups, as version 0024 wrote them (a row per task
      // and scorer, gone with the table); the figures here are not what is checked.
      await oldPool.query(
        `INSERT INTO run_rollups (run_id, samples, tasks, results, selected_tasks, unselected,
                                  methods, counted, pass1, selected, oracle, ties,
                                  discrete_ties, discrete_of, truncation_calls, truncation_cut,
                                  truncation_refused, tasks_rolled_up)
         SELECT id, 0, 0, 0, 0, 0, '{}', 0, 0, 0, 0, 0, 0, 0, '{}', '{}', '{}', true FROM runs`,
      );
      migrated = await openStore({ databaseUrl: DATABASE_URL, schema: old, migrate: true });
      const runner = runnerOf(driverOf(migrated));
      const { rows } = await oldPool.query(
        "SELECT run_id, count(*)::int AS chunks FROM task_rollup_chunks GROUP BY run_id ORDER BY 1",
      );
      // 24 chunks for each of three scorers and the accuracy bits, 9 for the scorer of 9,000
      // tasks.
      expect(rows).toEqual([
        { run_id: "a", chunks: 4 * 24 + 9 },
        { run_id: "b", chunks: 4 * 24 + 9 },
      ]);
      expect(await pairedDifferences(runner, "b", "a", "task rollups")).toEqual(
        await pairedDifferences(runner, "b", "a", "raw rows"),
      );
    } finally {
      await oldPool.end();
      await migrated?.close();
      await dropSchema(old);
    }
  });
});

// Any two task sets over a few chunks, numbered in whatever order they first appear, with
// scores missing here and there, few-level or continuous values, and selections a
// comparison counts or not: the chunks pair exactly what the raw rows pair.
const SPAN = 2600; // task numbers over three chunks, the last one partial
const taskSet = fc.uniqueArray(fc.integer({ min: 0, max: SPAN - 1 }), { maxLength: 120 });
const side = fc.record({
  tasks: taskSet,
  // Per task: a few-level or a continuous value (multiples of 1/1024: exact sums), or none.
  values: fc.array(fc.option(fc.integer({ min: 0, max: 1023 }), { nil: null }), {
    minLength: 120,
    maxLength: 120,
  }),
  // first_correct, selected_index null?, selected_correct, any_correct, each maybe null.
  selections: fc.array(
    fc.tuple(
      fc.option(fc.boolean()),
      fc.boolean(),
      fc.option(fc.boolean()),
      fc.option(fc.boolean()),
    ),
    { minLength: 120, maxLength: 120 },
  ),
  levels: fc.constantFrom(4, 1024),
});

type Side = typeof side extends fc.Arbitrary<infer T> ? T : never;

async function seedSide(id: string, s: Side): Promise<void> {
  await pool.query(`INSERT INTO runs (id, name, spec, transport) VALUES ($1, $1, '{}', 'local')`, [
    id,
  ]);
  await pool.query("SELECT assay_create_run_partitions($1)", [id]);
  const tasks = s.tasks.map((t) => `p${String(t).padStart(5, "0")}`);
  await pool.query(
    `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
     SELECT $1, t || '#0', t, 0, n, '{}' FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n)`,
    [id, tasks],
  );
  const values = s.tasks.map((_, i) => {
    const v = s.values[i] ?? null;
    return v === null ? null : Math.floor((v * s.levels) / 1024) / s.levels;
  });
  await pool.query(
    `INSERT INTO scores (run_id, sample_id, scorer, rule, status, value)
     SELECT $1, t || '#0', 'judge', 'default', 'scored', v
     FROM unnest($2::text[], $3::float8[]) AS u(t, v) WHERE v IS NOT NULL`,
    [id, tasks, values],
  );
  const column = (k: number) => s.tasks.map((_, i) => s.selections[i]?.[k] ?? null);
  await pool.query(
    `INSERT INTO selections (run_id, task_id, method, candidates, selected_index, tie,
                             first_correct, selected_correct, any_correct, detail)
     SELECT $1, t, 'argmax', 1, CASE WHEN unpicked THEN NULL ELSE 0 END, false,
            first, picked, oracle, '{}'
     FROM unnest($2::text[], $3::boolean[], $4::boolean[], $5::boolean[], $6::boolean[])
       AS u(t, first, unpicked, picked, oracle)`,
    [id, tasks, column(0), column(1), column(2), column(3)],
  );
  await store.writeRollups(id);
}

describe("pairing task rollup chunks (property)", () => {
  it("gives the raw rows' counts for any two task sets over several chunks", async () => {
    const runner = runnerOf(driverOf(store));
    let pairs = 0;
    await fc.assert(
      fc.asyncProperty(side, side, async (a, b) => {
        pairs += 1;
        const [idA, idB] = [`pa-${pairs}`, `pb-${pairs}`];
        await seedSide(idA, a);
        await seedSide(idB, b);
        expect(await pairedDifferences(runner, idA, idB, "task rollups")).toEqual(
          await pairedDifferences(runner, idA, idB, "raw rows"),
        );
      }),
      { numRuns: propertyRuns(15) },
    );
  });
});

describe("numbering the same new tasks from two completions at once", () => {
  it("makes the second wait for the first, then numbers each task once", async () => {
    const tasks = Array.from({ length: 3000 }, (_, i) => `c${i}`);
    for (const id of ["c1", "c2"]) {
      await pool.query(
        `INSERT INTO runs (id, name, spec, transport) VALUES ($1, 'concurrent', '{}', 'local')`,
        [id],
      );
      await pool.query("SELECT assay_create_run_partitions($1)", [id]);
      await pool.query(
        `INSERT INTO samples (run_id, sample_id, task_id, candidate_index, line, metadata)
         SELECT $1, t, t, 0, n, '{}' FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n)`,
        [id, id === "c1" ? tasks : [...tasks].reverse()],
      );
    }
    const [first, second] = [await pool.connect(), await pool.connect()];
    try {
      await first.query("BEGIN");
      await first.query("SELECT assay_number_run_tasks('c1')");
      const pid = (await second.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]
        ?.pid;
      const numbering = second.query("SELECT assay_number_run_tasks('c2')");
      // The fault hit: the second completion waits on the first's uncommitted numbers.
      await expect
        .poll(
          async () =>
            (await pool.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]))
              .rows[0]?.wait_event_type,
          { timeout: 10_000 },
        )
        .toBe("Lock");
      await first.query("COMMIT");
      await numbering;
    } finally {
      first.release();
      second.release();
    }
    const { rows } = await pool.query(
      `SELECT count(*)::int AS keys, count(DISTINCT task_index)::int AS numbers
       FROM task_keys WHERE task_id LIKE 'c%'`,
    );
    expect(rows).toEqual([{ keys: 3000, numbers: 3000 }]);
  });
});
