import { randomBytes } from "node:crypto";
import type { JobResult, Sample } from "@assay/core";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RejectedRowError } from "../src/rejected-row-error.js";
import type { Store } from "../src/store.js";
import { writeIsolating } from "../src/write-isolating.js";
import { sample, scored, startedRunId } from "./fixtures.js";

function result(runId: string, sampleId: string, detail: Record<string, unknown> | null = null) {
  const score = { ...scored(runId, sampleId, "exact", 1), detail };
  return { score, truncations: [], usage: [] } satisfies JobResult;
}

describe.each(DRIVER_NAMES)("rows the store refuses (%s)", (driver) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(async () => {
    opened = await openTestStore(driver);
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("fail alone in the batched writer: the rest of their batch is stored", async () => {
    const runId = await startedRunId(store);
    const writer = store.createResultWriter({ maxBatch: 64, maxDelayMs: 5 });
    const bad = new Map([
      [5, result(runId, "s5", { text: "nul \u0000 here" })],
      [13, result(runId, "s13\u0000")],
      [17, result(runId, "s17", { text: "lone \ud800" })],
    ]);
    const rows = Array.from({ length: 40 }, (_, i) => bad.get(i) ?? result(runId, `s${i}`));
    const outcomes = await Promise.allSettled(rows.map((row) => writer.add(row)));
    await writer.close();

    const refused = outcomes.flatMap((outcome, i) => (outcome.status === "rejected" ? [i] : []));
    expect(refused).toEqual([5, 13, 17]);
    for (const index of refused) {
      const outcome = outcomes[index] as PromiseRejectedResult;
      expect(outcome.reason).toBeInstanceOf(RejectedRowError);
      expect((outcome.reason as RejectedRowError).reason).toMatch(/\((22P05|22021|22P02)\)$/);
    }
    expect(await store.countResults(runId)).toBe(37);
    expect(writer.stats).toMatchObject({ rows: 37, refused: 3 });
  });

  it("are isolated among samples by splitting the batch; the others are stored", async () => {
    const runId = await startedRunId(store);
    // NUL in text (22021), and an id too long for its unique index (54000).
    const tooLong = randomBytes(3000).toString("base64").slice(0, 3000);
    const samples: Sample[] = Array.from({ length: 30 }, (_, i) =>
      sample(`q${i}`, { line: i + 1 }),
    );
    samples[3] = sample("q3\u0000", { line: 4 });
    samples[21] = sample(tooLong, { line: 22 });
    const written: number[] = [];
    const failures = await writeIsolating(samples, async (part) => {
      await store.insertSamples(runId, part);
      written.push(part.length);
    });

    expect([...failures.keys()].sort((a, b) => a - b)).toEqual([3, 21]);
    expect((failures.get(21) as RejectedRowError).reason).toMatch(/index row size.*\(54000\)$/);
    expect(written.reduce((sum, n) => sum + n, 0)).toBe(28);
    const rows = await queryRows(
      store,
      `SELECT count(*)::int AS n FROM samples WHERE run_id = '${runId}'`,
    );
    expect(rows).toEqual([{ n: 28 }]);
  });

  it("keep a sample refused as a duplicate from leaving its generator usage behind", async () => {
    const runId = await startedRunId(store);
    const generator = { model: "gen", input_tokens: 10, output_tokens: 2 };
    await store.insertSamples(runId, [sample("d1", { line: 1 })]);
    // Line 2 reuses "d1" with a generator: the sample is not inserted, so neither is the usage.
    expect(await store.insertSamples(runId, [sample("d1", { line: 2, generator })])).toBe(0);
    await store.insertSamples(runId, [sample("d2", { line: 3, generator })]);
    await store.deleteSamples(runId, [
      { id: "d1", line: 2 }, // stored from line 1: kept
      { id: "d2", line: 3 },
    ]);
    const samples = await queryRows(
      store,
      `SELECT sample_id, line FROM samples WHERE run_id = '${runId}'`,
    );
    expect(samples).toEqual([{ sample_id: "d1", line: 1 }]);
    const usage = await queryRows(store, `SELECT sample_id FROM usage WHERE run_id = '${runId}'`);
    expect(usage).toEqual([]);
  });
});
