import { describe, expect, it } from "vitest";
import { costOfUsage, parsePriceTable, SpecError, type UsageTotals } from "../src/index.js";

// A price table is input like a spec: a model written twice would silently take the last
// price, and a model named like a property every object has must not find one.
function usage(model: string): UsageTotals {
  return {
    role: "generator",
    model,
    inputTokens: 1_000_000,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    computeMs: null,
    rows: 1,
  };
}

describe("price tables are checked as specs are", () => {
  it.each([
    [
      "prices.json",
      '{"models": {"gen": {"input_per_million": 1}, "gen": {"input_per_million": 9}}}',
    ],
    ["prices.yaml", 'models:\n  "1": { input_per_million: 1 }\n  1: { input_per_million: 9 }\n'],
  ])("refuses a model written twice in %s, naming it", (file, text) => {
    expect(() => parsePriceTable(text, file)).toThrow(SpecError);
    expect(() => parsePriceTable(text, file)).toThrow(
      /: models(\.gen|\["1"\]): this key appears twice/,
    );
  });

  it("refuses a __proto__ model, which would otherwise vanish from the table", () => {
    const text = '{"models": {"__proto__": {"input_per_million": 1}}}';
    expect(() => parsePriceTable(text, "prices.json")).toThrow(
      /models\.__proto__: the key `__proto__`/,
    );
  });

  it.each(["constructor", "toString", "hasOwnProperty", "__proto__"])(
    "leaves a generator model named `%s` unpriced (unknown), not free",
    (model) => {
      const table = parsePriceTable("models:\n  gen: { input_per_million: 1 }\n", "prices.yaml");
      const cost = costOfUsage([usage(model)], table, { idle: ["verifier"] });
      expect(cost.generation).toBeNull();
      expect(cost.warnings.join("\n")).toContain(
        `model \`${model}\` (generator) is not in the price table`,
      );
      expect(cost.pricing?.[0]?.basis).toBeNull();
    },
  );
});
