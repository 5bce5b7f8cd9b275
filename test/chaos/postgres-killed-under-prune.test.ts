/**
 * `assay prune` on a Postgres server that is kill -9ed while the prune waits, half-way,
 * to detach a run's partitions: the prune must end with one clear line and the documented
 * exit code, not a stack trace; its advisory lock goes with the dead session, so once the
 * server is back the next prune is not refused as "in progress" and finishes the half-pruned
 * run. Nothing of the run that is kept is lost, and the pruned runs still report from their
 * rollups as they did before.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { waitFor } from "@assay/test-support/services";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { expectLostPostgres } from "../distributed/support/lost-postgres.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";

const SAMPLES = 2_000;
const OLD_RUNS = ["night-1", "night-2"];
const KEPT = "night-3";

describe("chaos: Postgres killed under assay prune", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-prune-"));
  const dataset = join(dir, "data.jsonl");
  let postgres: OwnPostgres;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    const store = await openStore({ databaseUrl: postgres.url, migrate: true });
    await store.close();
    writeTextDataset(dataset, SAMPLES);
    for (const runId of [...OLD_RUNS, KEPT]) {
      const run = await startAssay(["run", dataset, "--db", postgres.url, "--run-id", runId]).done;
      expect(run.code, run.stderr).toBe(ExitCode.ok);
    }
    // The first two nights are a month old; the last one is tonight's.
    await sql(`UPDATE runs SET created_at = now() - interval '30 days' WHERE id = ANY($1)`, [
      OLD_RUNS,
    ]);
  });
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => {});
    await postgres?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connection(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: postgres.url });
    // A client whose server is killed emits 'error'; the test expects that.
    client.on("error", () => {});
    await client.connect();
    clients.push(client);
    return client;
  }

  async function sql<R extends pg.QueryResultRow>(text: string, params: unknown[] = []) {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Partitions of `runId` that exist now, over every raw table. */
  async function partitions(runId: string): Promise<number> {
    const rows = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM unnest(assay_run_partitioned_tables()) t
       WHERE to_regclass(quote_ident(assay_run_partition(t, $1))) IS NOT NULL`,
      [runId],
    );
    return rows[0]?.n ?? -1;
  }

  async function report(runId: string): Promise<unknown> {
    const out = await startAssay(["report", runId, "--db", postgres.url, "--json"]).done;
    expect(out.code, out.stderr).toBe(ExitCode.ok);
    const { trend: _, ...bundle } = JSON.parse(out.stdout) as Record<string, unknown>;
    return bundle;
  }

  const prune = () => ["prune", "--older-than", "7d", "--db", postgres.url, "--json"];

  it("ends with a clear error and exit 5, and the next prune finishes the half-pruned run", async () => {
    const before = await Promise.all(OLD_RUNS.map(report));
    const keptScores = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM scores WHERE run_id = $1",
      [KEPT],
    );
    expect(keptScores[0]?.n).toBe(SAMPLES * 2);

    // An analyst's transaction holds the raw tables open: the prune detaches concurrently,
    // so it waits for it, half-way through its first run.
    const analyst = await connection();
    await analyst.query("BEGIN");
    await analyst.query("SELECT count(*) FROM scores");
    const pruning = startAssay(prune());
    const observer = await connection();
    await waitFor(
      async () => {
        if (pruning.child.exitCode !== null) throw new Error(`prune ended:\n${pruning.stderr()}`);
        const { rows } = await observer.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE query ILIKE '%DETACH PARTITION%' AND wait_event_type = 'Lock'`,
        );
        return rows.length > 0;
      },
      60_000,
      "the prune to wait on the analyst",
    );
    // The fault hits something: a run is marked pruned with its partitions still there,
    // and the prune holds its advisory lock.
    const marked = await sql<{ id: string }>(
      "SELECT id FROM runs WHERE pruned_at IS NOT NULL ORDER BY id",
    );
    expect(marked.length).toBeGreaterThan(0);
    expect(await partitions(marked[0]?.id as string)).toBeGreaterThan(0);
    const locks = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    expect(locks[0]?.n).toBeGreaterThan(0);

    await postgres.kill();
    const failed = await pruning.done;
    expectLostPostgres(failed);

    await postgres.restart();
    // Recovery kept the mark: the run is half-pruned, not quietly whole again.
    expect(await partitions(marked[0]?.id as string)).toBeGreaterThan(0);
    const next = await startAssay(prune()).done;
    expect(next.code, next.stderr).toBe(ExitCode.ok);
    const outcome = JSON.parse(next.stdout) as {
      pruned: { runId: string }[];
      completed: string[];
    };
    const finished = [...outcome.pruned.map((run) => run.runId), ...outcome.completed];
    expect(finished.sort()).toEqual([...OLD_RUNS].sort());
    expect(outcome.completed).toContain(marked[0]?.id);
    for (const runId of OLD_RUNS) expect(await partitions(runId)).toBe(0);
    // Tonight's run is whole, and the pruned nights report from their rollups as before.
    expect(await sql("SELECT count(*)::int AS n FROM scores WHERE run_id = $1", [KEPT])).toEqual(
      keptScores,
    );
    expect(await Promise.all(OLD_RUNS.map(report))).toEqual(before);
  });
});
