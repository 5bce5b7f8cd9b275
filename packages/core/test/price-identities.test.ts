import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  costOfUsage,
  modelIdentity,
  PriceTableSchema,
  priceTableWithIdentities,
  type UsageTotals,
} from "../src/index.js";

const cwd = mkdtempSync(join(tmpdir(), "assay-price-identities-"));
mkdirSync(join(cwd, "models", "verifier"), { recursive: true });
symlinkSync(join(cwd, "models", "verifier"), join(cwd, "linked"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const verifierUsage = (model: string): UsageTotals => ({
  role: "verifier",
  model,
  inputTokens: 2_000_000,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  computeMs: null,
  rows: 1,
});

describe("a price table's model folders", () => {
  it("price the verifier by its identity, however the table and the loader spell it", () => {
    const identity = realpathSync(join(cwd, "models", "verifier"));
    for (const key of ["./models/verifier", "models/verifier/", join(cwd, "linked")]) {
      const table = priceTableWithIdentities(
        PriceTableSchema.parse({ models: { [key]: { input_per_million: 0.5 } } }),
        "prices.yaml",
        cwd,
      );
      // What usage rows name the model by, whichever spelling loaded it.
      for (const loaded of ["models/verifier", "./linked/", identity]) {
        expect(modelIdentity(loaded, cwd)).toBe(identity);
      }
      expect(costOfUsage([verifierUsage(identity)], table).verification).toBe(1);
      // The key as written still prices usage stored under it.
      expect(costOfUsage([verifierUsage(key)], table).verification).toBe(1);
    }
  });

  it("leaves a generator's name and a hub id as they are", () => {
    const written = PriceTableSchema.parse({
      models: { "gpt-4o-mini": { input_per_million: 1 }, "acme/judge": { gpu_hour: 2 } },
    });
    expect(priceTableWithIdentities(written, "prices.yaml", cwd)).toEqual(written);
  });

  it("refuses two names of one model with different prices, naming both", () => {
    const table = PriceTableSchema.parse({
      models: {
        "./models/verifier": { input_per_million: 0.5 },
        "linked/": { input_per_million: 0.7 },
      },
    });
    expect(() => priceTableWithIdentities(table, "prices.yaml", cwd)).toThrow(
      /prices\.yaml: models\.linked\/: `linked\/` and `\.\/models\/verifier` name one model \(.*models\/verifier\) with different prices/,
    );
    const same = PriceTableSchema.parse({
      models: {
        "./models/verifier": { input_per_million: 0.5 },
        "linked/": { input_per_million: 0.5 },
      },
    });
    expect(() => priceTableWithIdentities(same, "prices.yaml", cwd)).not.toThrow();
  });
});
