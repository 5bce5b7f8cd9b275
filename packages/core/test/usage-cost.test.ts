import { describe, expect, it } from "vitest";
import { costOfUsage, PriceTableSchema, type UsageTotals } from "../src/index.js";

const table = PriceTableSchema.parse({
  models: {
    gen: { input_per_million: 0.14, cached_input_per_million: 0.028, output_per_million: 0.28 },
    judge: { gpu_hour: 3.6 },
  },
});

function totals(
  role: UsageTotals["role"],
  model: string,
  extra: Partial<UsageTotals> = {},
): UsageTotals {
  return {
    role,
    model,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    computeMs: null,
    rows: 1,
    ...extra,
  };
}

describe("costOfUsage", () => {
  it("prices tokens per million and compute per GPU-hour", () => {
    const cost = costOfUsage(
      [
        // 1M input · 0.14 + 2M cached · 0.028 + 0.5M output · 0.28 = 0.14 + 0.056 + 0.14
        totals("generator", "gen", { inputTokens: 1e6, cachedInputTokens: 2e6, outputTokens: 5e5 }),
        // 10 minutes at 3.6 per hour = 0.6
        totals("verifier", "judge", { inputTokens: 9e6, computeMs: 600_000 }),
      ],
      table,
    );
    expect(cost.generation).toBeCloseTo(0.336, 10);
    expect(cost.verification).toBeCloseTo(0.6, 10);
    expect(cost.total).toBeCloseTo(0.936, 10);
    expect(cost.currency).toBe("USD");
    expect(cost.warnings).toEqual([]);
  });

  it("leaves the cost null with a warning for an unknown model, never 0", () => {
    const cost = costOfUsage(
      [
        totals("generator", "mystery", { inputTokens: 10 }),
        totals("verifier", "judge", { computeMs: 1 }),
      ],
      table,
    );
    expect(cost.generation).toBeNull();
    expect(cost.total).toBeNull();
    expect(cost.verification).toBeCloseTo(0.000001, 12);
    expect(cost.warnings).toEqual([
      "model `mystery` (generator) is not in the price table: its cost is unknown",
    ]);
  });

  it("says so when a GPU-hour price has no measured compute, or a role has no usage", () => {
    const cost = costOfUsage([totals("verifier", "judge")], table);
    expect(cost.verification).toBeNull();
    expect(cost.warnings).toEqual([
      "no generator usage recorded: generator cost unknown",
      "model `judge` (verifier) is priced per GPU-hour but no compute time was measured",
    ]);
  });

  it("charges cached tokens at the input price when no cached price is given", () => {
    const plain = PriceTableSchema.parse({ models: { m: { input_per_million: 1 } } });
    const cost = costOfUsage(
      [
        totals("generator", "m", { cachedInputTokens: 1e6 }),
        totals("verifier", "m", { inputTokens: 1e6 }),
      ],
      plain,
    );
    expect(cost.total).toBe(2);
  });

  it("rejects a model entry without any price", () => {
    const result = PriceTableSchema.safeParse({ models: { m: {} } });
    expect(result.success).toBe(false);
  });
});
