import { fileURLToPath } from "node:url";
import { createLogger, loadSpec, produce, runLocal } from "@assay/pipeline";
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreRowsOf } from "./support/score-rows.js";

const dataset = fileURLToPath(new URL("../../examples/mixed.jsonl", import.meta.url));
const specFile = fileURLToPath(new URL("../../examples/mixed.spec.yaml", import.meta.url));

describe("local and distributed transports", () => {
  const schemas = { local: freshSchema(), distributed: freshSchema() };
  const prefix = freshPrefix();
  const stores: Partial<Record<keyof typeof schemas, Store>> = {};

  beforeAll(async () => {
    stores.local = await openStore({
      databaseUrl: DATABASE_URL,
      schema: schemas.local,
      migrate: true,
    });
    stores.distributed = await openStore({
      databaseUrl: DATABASE_URL,
      schema: schemas.distributed,
      migrate: true,
    });
  });
  afterAll(async () => {
    for (const store of Object.values(stores)) await store?.close();
    for (const schema of Object.values(schemas)) await dropSchema(schema);
    await deletePrefix(prefix);
  });

  it("store identical score rows for the same dataset", async () => {
    const registry = defaultRegistry();
    const spec = await loadSpec(specFile, registry);
    const local = stores.local as Store;
    const distributed = stores.distributed as Store;
    for (const store of [local, distributed]) {
      await store.startRun({ id: "same", dataset, spec, transport: "test" });
    }

    await runLocal({ store: local, registry, dataset, spec, runId: "same" });

    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    const stop = new AbortController();
    const worker = runWorker({
      pool: "cpu",
      concurrency: 20,
      store: distributed,
      transport,
      registry,
      log: createLogger("silent"),
      signal: stop.signal,
    });
    try {
      const produced = await produce({
        store: distributed,
        transport,
        registry,
        dataset,
        spec,
        runId: "same",
      });
      await waitFor(
        async () => (await distributed.countResults("same")) === produced.planned,
        30_000,
        "all results",
      );
    } finally {
      stop.abort();
      await worker;
      await transport.close();
    }

    const expected = await scoreRowsOf(schemas.local, "same");
    expect(expected.length).toBeGreaterThan(250);
    expect(await scoreRowsOf(schemas.distributed, "same")).toEqual(expected);
  });
});
