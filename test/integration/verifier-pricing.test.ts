import type { JobResult, PriceTable, UsageRow } from "@assay/core";
import { renderReportHtml, renderReportTable } from "@assay/report";
import { driverOf } from "@assay/store/driver";
import { reportBundle, runnerOf } from "@assay/store/reports";
import { DRIVER_NAMES, openTestStore, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The same verifier work, measured once on an idle machine and once on a busy one: priced
// per GPU-hour its cost follows the measured time; priced per million tokens it is the
// same both times. The report says which basis each model was priced on.
const TOKEN_PRICES: PriceTable = {
  currency: "USD",
  models: {
    gen: { input_per_million: 1, output_per_million: 2 },
    verifier: { input_per_million: 0.5, cached_input_per_million: 0.1 },
  },
};
const GPU_PRICES: PriceTable = {
  currency: "USD",
  models: { gen: TOKEN_PRICES.models.gen ?? {}, verifier: { gpu_hour: 3.6 } },
};

function job(runId: string, sampleId: string, computeMs: number): JobResult {
  const usage = (role: UsageRow["role"], model: string, ms: number | null): UsageRow => ({
    runId,
    sampleId,
    role,
    scorer: role === "verifier" ? "verifier" : "",
    model,
    inputTokens: 1000,
    cachedInputTokens: role === "verifier" ? 3000 : 0,
    cacheWriteTokens: 0,
    outputTokens: role === "verifier" ? 0 : 200,
    computeMs: ms,
    device: ms === null ? null : "cuda:0",
    prompts: role === "verifier" ? 4 : null,
    forwardPasses: role === "verifier" ? 1 : null,
  });
  return {
    score: {
      runId,
      sampleId,
      scorer: "verifier",
      criterion: "",
      repetition: 0,
      rule: "default",
      status: "scored",
      value: 0.5,
      reason: null,
      detail: null,
    },
    truncations: [],
    usage: [usage("generator", "gen", null), usage("verifier", "verifier", computeMs)],
  };
}

describe.each(DRIVER_NAMES)("verifier cost on %s", (driver) => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTestStore(driver);
  });
  afterAll(() => db?.dispose());

  it("is the same on every rerun when priced by tokens, and says what each model was priced on", async () => {
    // Same tokens; the busy machine measured 1.5× the time.
    for (const [runId, ms] of [
      ["idle", 1000],
      ["busy", 1500],
    ] as const) {
      await db.store.startRun({ id: runId, spec: {}, transport: "local" });
      await db.store.writeResults([job(runId, "a", ms), job(runId, "b", ms)]);
    }
    const runner = runnerOf(driverOf(db.store));
    const costOf = async (runId: string, prices: PriceTable) =>
      (await reportBundle(runner, runId, { prices })).report.cost;

    const [idleTokens, busyTokens] = [
      await costOf("idle", TOKEN_PRICES),
      await costOf("busy", TOKEN_PRICES),
    ];
    // 2 × (1000 × 0.5 + 3000 × 0.1) per million.
    expect(idleTokens?.verification).toBeCloseTo(0.0016, 12);
    expect(busyTokens?.verification).toBe(idleTokens?.verification);
    const [idleGpu, busyGpu] = [await costOf("idle", GPU_PRICES), await costOf("busy", GPU_PRICES)];
    expect(busyGpu?.verification).toBeCloseTo((idleGpu?.verification ?? 0) * 1.5, 12);

    expect(idleTokens?.pricing).toEqual([
      { role: "generator", model: "gen", basis: "tokens" },
      { role: "verifier", model: "verifier", basis: "tokens" },
    ]);
    expect(idleGpu?.pricing).toEqual([
      { role: "generator", model: "gen", basis: "tokens" },
      { role: "verifier", model: "verifier", basis: "gpu_hour" },
    ]);

    const gpuBundle = await reportBundle(runner, "busy", { prices: GPU_PRICES });
    const table = renderReportTable(gpuBundle);
    expect(table).toContain(
      "verifier verifier: per GPU-hour of measured wall-clock time (varies with load)",
    );
    expect(table).toContain("the same work costs more on a busy machine");
    expect(renderReportHtml(gpuBundle)).toContain('data-note="measured-time"');
    const tokenTable = renderReportTable(
      await reportBundle(runner, "busy", { prices: TOKEN_PRICES }),
    );
    expect(tokenTable).toContain("verifier verifier: per million tokens (reproducible)");
    expect(tokenTable).not.toContain("busy machine");
  });
});
