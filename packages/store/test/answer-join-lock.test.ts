import { openStore, RunInUseError, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";

// The answer-join lock on Postgres, between two stores (two processes' pools) on one server.

const [schemaA, schemaB] = [freshSchema(), freshSchema()];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const schema of [schemaA, schemaB]) await dropSchema(schema);
});

async function storeIn(schema: string): Promise<Store> {
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  stores.push(store);
  return store;
}

describe("answer-join lock (Postgres)", () => {
  it("refuses a second join of the run until the first releases it", async () => {
    const [first, second] = [await storeIn(schemaA), await storeIn(schemaA)];
    const held = await first.lockAnswerJoin("nightly");
    const refused = second.lockAnswerJoin("nightly");
    await expect(refused).rejects.toThrow(RunInUseError);
    await expect(refused).rejects.toThrow(/run nightly: another process is joining its answers/);
    // Another run of the same store joins meanwhile.
    const other = await second.lockAnswerJoin("weekly");
    await other.release();

    await held.release();
    const next = await second.lockAnswerJoin("nightly");
    await next.release();
  });

  it("keeps runs of one id in two schemas apart: they are two runs", async () => {
    const [first, second] = [await storeIn(schemaA), await storeIn(schemaB)];
    const held = await first.lockAnswerJoin("shared-id");
    // Held: the same schema is refused, the other schema's run of that id is not.
    const third = await storeIn(schemaA);
    await expect(third.lockAnswerJoin("shared-id")).rejects.toThrow(RunInUseError);
    const other = second.lockAnswerJoin("shared-id");
    await expect(other).resolves.toMatchObject({ release: expect.any(Function) });
    await (await other).release();
    await held.release();
  });

  it("gives back the connection it held, whether it got the lock or not", async () => {
    const store = await storeIn(schemaA);
    const driver = driverOf(store);
    if (driver.kind !== "postgres") throw new Error("a Postgres store");
    const pool = driver.pool;
    const held = await store.lockAnswerJoin("pooled");
    expect(pool.totalCount - pool.idleCount, "the lock holds one connection").toBe(1);
    await expect(store.lockAnswerJoin("pooled")).rejects.toThrow(RunInUseError);
    expect(pool.totalCount - pool.idleCount, "the refused attempt gave its back").toBe(1);
    await held.release();
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });
});
