import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunSpecSchema } from "@assay/core";
import { produce } from "@assay/pipeline";
import { runWorker } from "@assay/pipeline/worker";
import { BullmqTransport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
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
      await store.startRun({ id: "night", dataset, spec, transport: "bullmq" });
      const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
      try {
        const produced = await produce({
          store,
          transport,
          registry: defaultRegistry(),
          dataset,
          spec,
          runId: "night",
        });
        expect(produced.planned).toBe(TASKS * 3 * 2);
      } finally {
        await transport.close();
      }
      // No producer waits and nobody runs `assay status`.
      await waitFor(async () => store.hasRollups("night"), 60_000, "the run's rollups");
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
    expect(completed).toHaveLength(1);
  });
});
