import type { JobResult } from "@assay/core";
import { waitFor } from "@assay/test-support/services";
import {
  DATABASE_URL,
  dropSchema,
  freshSchema,
  partitionsOf,
  queryRows,
} from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open-store.js";
import { PruneInProgressError } from "../src/prune/prune-runs.js";
import type { Store } from "../src/store.js";
import { sample, scored, startedRunId } from "./fixtures.js";

// `assay prune` on a server while the night goes on: another run is being written and an
// analyst's transaction holds the raw tables open. Dropping a partition as it stands would
// need an ACCESS EXCLUSIVE lock on its parent, queueing every later write behind that
// transaction; the prune must instead wait alone, and a prune killed while it waits must
// be finished by the next one.

const schema = freshSchema();
let store: Store;
const clients: pg.Client[] = [];

beforeAll(async () => {
  store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
});
afterAll(async () => {
  for (const client of clients) await client.end().catch(() => {});
  await store?.close();
  await dropSchema(schema);
});

/** A connection of its own on the store's schema: the analyst, or the operator's psql. */
async function connection(): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: DATABASE_URL,
    options: `-c search_path=${schema}`,
  });
  await client.connect();
  clients.push(client);
  return client;
}

/** Writes one batch of `count` scored samples of `runId`, as the pipeline does. */
async function writeBatch(runId: string, first: number, count: number): Promise<void> {
  const ids = Array.from({ length: count }, (_, i) => `s${first + i}`);
  await store.insertSamples(
    runId,
    ids.map((id) => sample(id)),
  );
  const results: JobResult[] = ids.map((id) => ({
    score: scored(runId, id, "exact", 1),
    truncations: [],
    usage: [],
  }));
  await store.writeResults(results);
}

/** A finished, rolled-up run started 30 days ago: what a prune drops. */
async function oldRun(): Promise<string> {
  const runId = await startedRunId(store);
  await writeBatch(runId, 0, 20);
  await queryRows(
    store,
    `UPDATE runs SET created_at = now() - interval '30 days' WHERE id = '${runId}'`,
  );
  await store.finishRun(runId);
  await store.writeRollups(runId);
  return runId;
}

/** The pruned run's own report; its trend lists the other runs, which the night changes. */
async function ownReport(runId: string) {
  const { trend: _, ...bundle } = await store.reportBundle(runId);
  return bundle;
}

async function count(table: string, runId: string): Promise<number> {
  const rows = (await queryRows(
    store,
    `SELECT count(*)::int AS n FROM ${table} WHERE run_id = '${runId}'`,
  )) as { n: number }[];
  return rows[0]?.n ?? -1;
}

/** The backend detaching one of the run's partitions while it waits for older readers. */
async function waitingDetach(observer: pg.Client): Promise<number | undefined> {
  const { rows } = await observer.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE query ILIKE '%DETACH PARTITION%' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]?.pid;
}

const THIRTY_DAYS_AGO_BUT_ONE = () => new Date(Date.now() - 29 * 24 * 3_600_000);

describe("prune on a server while another run is written", () => {
  it("waits for an analyst's open transaction without holding up the other run's writes or a new run's start", async () => {
    const old = await oldRun();
    const night = await startedRunId(store);
    const before = await ownReport(old);
    const analyst = await connection();
    await analyst.query("BEGIN");
    await analyst.query("SELECT count(*) FROM scores");
    await analyst.query("SELECT count(*) FROM samples");

    const pruning = store.pruneRuns(
      { startedBefore: THIRTY_DAYS_AGO_BUT_ONE() },
      { dryRun: false },
    );
    let settled = false;
    void pruning.finally(() => {
      settled = true;
    });
    const observer = await connection();
    // The fault hit: the prune is waiting on the analyst's transaction.
    await waitFor(
      async () => (await waitingDetach(observer)) !== undefined,
      5_000,
      "the prune to wait on the analyst",
    );

    // Meanwhile the night goes on: batches of another run, and the start of a new run.
    for (let batch = 0; batch < 5; batch += 1) await writeBatch(night, batch * 40, 40);
    const next = await startedRunId(store);
    await writeBatch(next, 0, 10);
    expect(settled).toBe(false);
    expect(await waitingDetach(observer)).toBeDefined();

    await analyst.query("COMMIT");
    const outcome = await pruning;
    expect(outcome.pruned.map((run) => run.runId)).toEqual([old]);
    expect(await partitionsOf(store, old)).toBe(0);
    // Nothing the night wrote is lost, and the pruned run still reports from its rollups.
    expect(await count("samples", night)).toBe(200);
    expect(await count("scores", night)).toBe(200);
    expect(await count("scores", next)).toBe(10);
    expect(await ownReport(old)).toEqual(before);
  });

  it("refuses a second prune while one is running, and takes it once the first is done", async () => {
    const old = await oldRun();
    const analyst = await connection();
    await analyst.query("BEGIN");
    await analyst.query("SELECT count(*) FROM scores");
    const first = store.pruneRuns({ startedBefore: THIRTY_DAYS_AGO_BUT_ONE() }, { dryRun: false });
    const observer = await connection();
    await waitFor(
      async () => (await waitingDetach(observer)) !== undefined,
      5_000,
      "the first prune to wait on the analyst",
    );
    // The fault hit: the first prune is half-way, the run marked and its partitions there.
    expect((await store.getRun(old))?.prunedAt).toBeInstanceOf(Date);
    expect(await partitionsOf(store, old)).toBeGreaterThan(0);
    const second = store.pruneRuns({ startedBefore: THIRTY_DAYS_AGO_BUT_ONE() }, { dryRun: false });
    await expect(second).rejects.toBeInstanceOf(PruneInProgressError);
    await expect(second).rejects.toThrow(/another assay prune is running/);
    // A dry run only reads: it goes through meanwhile.
    const dry = await store.pruneRuns(
      { startedBefore: THIRTY_DAYS_AGO_BUT_ONE() },
      { dryRun: true },
    );
    expect(dry.pruned).toEqual([]);

    await analyst.query("COMMIT");
    expect((await first).pruned.map((run) => run.runId)).toEqual([old]);
    expect(await partitionsOf(store, old)).toBe(0);
    const after = await store.pruneRuns(
      { startedBefore: THIRTY_DAYS_AGO_BUT_ONE() },
      { dryRun: false },
    );
    expect(after).toEqual({ pruned: [], skipped: [], completed: [] });
  });

  it("finishes, on the next prune, a prune killed while it waited", async () => {
    const old = await oldRun();
    const before = await ownReport(old);
    const analyst = await connection();
    await analyst.query("BEGIN");
    await analyst.query("SELECT count(*) FROM scores");

    const pruning = store
      .pruneRuns({ startedBefore: THIRTY_DAYS_AGO_BUT_ONE() }, { dryRun: false })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const observer = await connection();
    let pid: number | undefined;
    await waitFor(
      async () => {
        pid = await waitingDetach(observer);
        return pid !== undefined;
      },
      5_000,
      "the prune to wait on the analyst",
    );
    await observer.query("SELECT pg_terminate_backend($1)", [pid]);
    expect(await pruning).toBeInstanceOf(Error);
    await analyst.query("COMMIT");

    // Killed half-way: the run is marked pruned, so nothing reads its rows, but some of its
    // partitions are still there, one of them perhaps with its detach left pending.
    expect((await store.getRun(old))?.prunedAt).toBeInstanceOf(Date);
    expect(await partitionsOf(store, old)).toBeGreaterThan(0);

    const outcome = await store.pruneRuns(
      { startedBefore: THIRTY_DAYS_AGO_BUT_ONE() },
      { dryRun: false },
    );
    expect(outcome.completed).toEqual([old]);
    expect(outcome.pruned).toEqual([]);
    expect(await partitionsOf(store, old)).toBe(0);
    expect(await ownReport(old)).toEqual(before);
    // A later prune has nothing left to finish.
    const again = await store.pruneRuns(
      { startedBefore: THIRTY_DAYS_AGO_BUT_ONE() },
      { dryRun: false },
    );
    expect(again.completed).toEqual([]);
  });
});
