import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { RunSpecSchema } from "@assay/core";
import { produce } from "@assay/pipeline";
import { runWorker } from "@assay/pipeline/worker";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { pairedDifferences, runnerOf } from "@assay/store/reports";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { queryRows } from "@assay/test-support/stores";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TASKS = 300;
const NIGHTS = ["night", "night-2", "night-3"];
const spec = RunSpecSchema.parse({
  default: { scorers: [{ name: "f1" }, { name: "exact" }] },
  selection: { verifier: "f1", check: "exact" },
});

describe("a night nobody follows", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-last-worker-"));
  const dataset = join(dir, "tasks.jsonl");
  let store: Store;

  beforeAll(async () => {
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    const lines = Array.from({ length: TASKS }, (_, i) =>
      JSON.stringify({
        id: `t${i}`,
        question: `Capital of country ${i}?`,
        target: `city ${i}`,
        candidates: [
          { answer: `city ${i} or so` },
          { answer: i % 4 === 0 ? "no idea" : `city ${i}` },
          { answer: "no idea at all" },
        ],
      }),
    );
    writeFileSync(dataset, `${lines.join("\n")}\n`);
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is completed by the worker that stores its last result: selection, rollups, once", async () => {
    const logs: string[] = [];
    const stop = new AbortController();
    // Two worker processes' worth: a store and a Redis connection each.
    const workers = await Promise.all(
      [1, 2].map(async (n) => {
        const own = await openStore({ databaseUrl: DATABASE_URL, schema });
        const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
        const log = pino({ level: "info", name: `w${n}` }, { write: (line) => logs.push(line) });
        const running = runWorker({
          pool: "cpu",
          concurrency: 20,
          store: own,
          transport,
          registry: defaultRegistry(),
          log,
          signal: stop.signal,
        });
        return { own, transport, running };
      }),
    );
    try {
      // Two nights of one name, each completed by a worker, the second counted against the
      // first as it completes.
      for (const night of NIGHTS) {
        await store.startRun({ id: night, name: "nightly", dataset, spec, transport: "bullmq" });
        const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
        try {
          const produced = await produce({
            store,
            transport,
            registry: defaultRegistry(),
            dataset,
            spec,
            runId: night,
          });
          expect(produced.planned).toBe(TASKS * 3 * 2);
        } finally {
          await transport.close();
        }
        // No producer waits and nobody runs `assay status`.
        await waitFor(async () => store.hasRollups(night), 60_000, `${night}'s rollups`);
        if (night === "night") {
          // The release the nights after it are compared with as well.
          const pinned = await assayInProcess([
            "baseline",
            "night",
            "--db",
            DATABASE_URL,
            "--db-schema",
            schema,
          ]);
          expect(pinned.code, pinned.stderr).toBe(ExitCode.ok);
          expect(pinned.stdout).toContain('Pinned night as the baseline of "nightly"');
        }
      }
    } finally {
      stop.abort();
      for (const worker of workers) {
        await worker.running;
        await worker.transport.close();
        await worker.own.close();
      }
    }
    expect((await store.getRun("night"))?.finishedAt).not.toBeNull();
    const picked = await queryRows(
      store,
      "SELECT count(*)::int AS n FROM selections WHERE run_id = 'night'",
    );
    expect(picked).toEqual([{ n: TASKS }]);
    const completed = logs.filter((line) => line.includes('"msg":"run completed"'));
    expect(completed).toHaveLength(NIGHTS.length);

    // The morning's `report night-2 --compare night` reads the counts the worker stored, and
    // so does `report night-3 --compare night`, the pinned baseline two nights back.
    const runner = runnerOf(driverOf(store));
    expect(
      await queryRows(
        store,
        "SELECT run_id, compared_with, compared_with_pinned FROM run_rollups WHERE run_id LIKE 'night-%' ORDER BY run_id",
      ),
    ).toEqual([
      { run_id: "night-2", compared_with: "night", compared_with_pinned: null },
      { run_id: "night-3", compared_with: "night-2", compared_with_pinned: "night" },
    ]);
    for (const current of ["night-2", "night-3"]) {
      const stored = await pairedDifferences(runner, current, "night", "comparison rollups");
      expect(stored.map((d) => d.metric)).toEqual(["pass@1", "selected", "oracle", "exact", "f1"]);
      // Pairing the two runs' task rollups or raw rows now: the same counts, and the same
      // sums up to the order the database added them in (f1 means are thirds).
      for (const source of ["task rollups", "raw rows"] as const) {
        const now = await pairedDifferences(runner, current, "night", source);
        expect(
          stored.map((d) => d.counted.differences),
          `${current}, ${source}`,
        ).toEqual(now.map((d) => d.counted.differences));
        stored.forEach((d, i) => {
          expect(d.counted.currentSum).toBeCloseTo(now[i]?.counted.currentSum ?? Number.NaN, 9);
          expect(d.counted.baselineSum).toBeCloseTo(now[i]?.counted.baselineSum ?? Number.NaN, 9);
        });
      }
    }
  });
});
