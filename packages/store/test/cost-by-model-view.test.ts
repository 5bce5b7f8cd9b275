import type { JobResult, PriceTableInput } from "@assay/core";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { importPrices, reportBundle, runnerOf, writeRollups } from "../src/reports/index.js";
import { sample, scored } from "./fixtures.js";

// analyst_cost_by_model and the report's cost by model, against a hand computation: each
// generator model and the verifier priced apart, 1-hour cache writes at their own rate.

const PRICES: PriceTableInput = {
  currency: "USD",
  models: {
    "gen-a": {
      input_per_million: 1,
      cached_input_per_million: 0.1,
      cache_write_per_million: 1.25,
      cache_write_1h_per_million: 2,
      output_per_million: 5,
    },
    "gen-b": { input_per_million: 3, output_per_million: 15 },
    "judge-model": { input_per_million: 0.02 },
  },
};

const RUN = "by-model";

// By hand, per million tokens:
//   gen-a: t0#0 (1000 in, 200 cached, 300 written of which 100 for an hour, 500 out) and
//          t1#1 (400 in, 50 out): 1400 × 1 + 200 × 0.1 + 200 × 1.25 + 100 × 2 + 550 × 5
//          = 1400 + 20 + 250 + 200 + 2750 = 4620
//   gen-b: t1#0 (2000 in, 100 out): 2000 × 3 + 100 × 15 = 7500
//   judge-model: 100 in + 10 cached (no cached price: the input price) = 110 × 0.02 = 2.2
// Solved: t0 (its first candidate passes f1 and judge); t1's first candidate fails f1.
// Each generator model's own solved tasks are those whose deciding candidate (here the
// first: no selection) it generated: t0#0 is gen-a's, so gen-a solved 1 and gen-b 0.
const EXPECTED = [
  {
    role: "generator",
    model: "gen-a",
    tokens: [1400, 200, 300, 100, 550],
    cost: 4620e-6,
    modelSolved: 1,
  },
  {
    role: "generator",
    model: "gen-b",
    tokens: [2000, 0, 0, 0, 100],
    cost: 7500e-6,
    modelSolved: 0,
  },
  {
    role: "verifier",
    model: "judge-model",
    tokens: [100, 10, 0, 0, 0],
    cost: 2.2e-6,
    modelSolved: null,
  },
];
const SOLVED = 1;

async function seed(db: TestStore): Promise<void> {
  const { store } = db;
  await importPrices(driverOf(store), { currency: "USD", models: PRICES.models } as never, {
    effectiveFrom: new Date("2000-01-01T00:00:00Z"),
    source: "test",
  });
  await store.startRun({ id: RUN, spec: { rules: [] }, transport: "local" });
  const generator = (model: string, tokens: number[]) => ({
    model,
    input_tokens: tokens[0] as number,
    cached_input_tokens: tokens[1] as number,
    cache_write_tokens: tokens[2] as number,
    cache_write_1h_tokens: tokens[3] as number,
    output_tokens: tokens[4] as number,
  });
  await store.insertSamples(RUN, [
    sample("t0#0", { line: 1, generator: generator("gen-a", [1000, 200, 300, 100, 500]) }),
    sample("t1#0", { line: 2, generator: generator("gen-b", [2000, 0, 0, 0, 100]) }),
    sample("t1#1", {
      line: 3,
      candidateIndex: 1,
      generator: generator("gen-a", [400, 0, 0, 0, 50]),
    }),
  ]);
  const judged: JobResult = {
    score: scored(RUN, "t0#0", "judge", 0.9),
    truncations: [],
    usage: [
      {
        runId: RUN,
        sampleId: "t0#0",
        role: "verifier",
        scorer: "judge",
        model: "judge-model",
        inputTokens: 100,
        cachedInputTokens: 10,
        cacheWriteTokens: 0,
        outputTokens: 0,
        computeMs: 5,
        device: "cpu",
        prompts: 1,
        forwardPasses: 1,
      },
    ],
  };
  await store.writeResults([
    judged,
    { score: scored(RUN, "t0#0", "f1", 0.8), truncations: [], usage: [] },
    { score: scored(RUN, "t1#0", "f1", 0.2), truncations: [], usage: [] },
    { score: scored(RUN, "t1#1", "f1", 0.7), truncations: [], usage: [] },
  ]);
  await store.finishRun(RUN);
  await writeRollups(driverOf(store), RUN);
}

describe.each(DRIVER_NAMES)("cost by model on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
    await seed(db);
  });
  afterAll(() => db?.dispose());

  it("analyst_cost_by_model gives each model's tokens, cost and cost per solved task", async () => {
    const { rows } = await runnerOf(driverOf(db.store)).query<Record<string, unknown>>(
      `SELECT * FROM analyst_cost_by_model WHERE run_id = $1 ORDER BY role, model`,
      [RUN],
    );
    expect(
      rows.map((r) => ({
        role: r.role,
        model: r.model,
        tokens: [
          r.input_tokens,
          r.cached_input_tokens,
          r.cache_write_tokens,
          r.cache_write_1h_tokens,
          r.output_tokens,
        ].map(Number),
        solved: Number(r.solved),
      })),
    ).toEqual(EXPECTED.map(({ role, model, tokens }) => ({ role, model, tokens, solved: SOLVED })));
    EXPECTED.forEach(({ cost }, i) => {
      expect(Number(rows[i]?.cost_usd)).toBeCloseTo(cost, 12);
      expect(Number(rows[i]?.cost_per_solved_usd)).toBeCloseTo(cost / SOLVED, 12);
    });
  });

  it("analyst_cost_by_model gives each generator model's cost per task it solved", async () => {
    const { rows } = await runnerOf(driverOf(db.store)).query<Record<string, unknown>>(
      `SELECT model, model_solved, cost_per_model_solved_usd FROM analyst_cost_by_model
       WHERE run_id = $1 ORDER BY role, model`,
      [RUN],
    );
    const nullable = (value: unknown) => (value === null ? null : Number(value));
    expect(rows.map((r) => nullable(r.model_solved))).toEqual(EXPECTED.map((m) => m.modelSolved));
    // gen-a: 4620e-6 over its 1 solved task; gen-b solved none and the verifier none of its
    // own: no figure, never a division by 0.
    expect(Number(rows[0]?.cost_per_model_solved_usd)).toBeCloseTo(4620e-6, 12);
    expect(rows.slice(1).map((r) => r.cost_per_model_solved_usd)).toEqual([null, null]);
  });

  it("a run rolled up before solved tasks were counted by model reads NULL, not 0", async () => {
    const runner = runnerOf(driverOf(db.store));
    await runner.query("UPDATE usage_rollups SET solved = NULL WHERE run_id = $1", [RUN]);
    try {
      const { rows } = await runner.query<Record<string, unknown>>(
        `SELECT model_solved, cost_per_model_solved, cost_per_solved FROM analyst_cost_by_model
         WHERE run_id = $1 ORDER BY role, model`,
        [RUN],
      );
      expect(rows.map((r) => [r.model_solved, r.cost_per_model_solved])).toEqual([
        [null, null],
        [null, null],
        [null, null],
      ]);
      expect(Number(rows[0]?.cost_per_solved)).toBeCloseTo(4620e-6 / SOLVED, 12);
      const { report } = await reportBundle(runner, RUN, {
        prices: { currency: "USD", models: PRICES.models } as never,
      });
      expect(report.cost?.byModel?.map((m) => m.solved)).toEqual([null, null, undefined]);
    } finally {
      await writeRollups(driverOf(db.store), RUN);
    }
  });

  it("the report's cost by model is the same hand computation", async () => {
    const { report } = await reportBundle(runnerOf(driverOf(db.store)), RUN, {
      prices: { currency: "USD", models: PRICES.models } as never,
    });
    const byModel = report.cost?.byModel ?? [];
    expect(
      byModel.map((m) => ({
        role: m.role,
        model: m.model,
        tokens: [
          m.inputTokens,
          m.cachedInputTokens,
          m.cacheWriteTokens,
          m.cacheWrite1hTokens,
          m.outputTokens,
        ],
      })),
    ).toEqual(EXPECTED.map(({ role, model, tokens }) => ({ role, model, tokens })));
    EXPECTED.forEach(({ cost }, i) => {
      expect(byModel[i]?.cost).toBeCloseTo(cost, 12);
    });
    // Generator rows carry their own solved tasks; the verifier's row has none.
    expect(byModel.map((m) => m.solved)).toEqual([1, 0, undefined]);
    expect(report.cost?.total).toBeCloseTo(4620e-6 + 7500e-6 + 2.2e-6, 12);
  });
});
