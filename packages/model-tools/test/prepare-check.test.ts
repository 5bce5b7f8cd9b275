import { largestDelta, preparedPair, scoreValues } from "@assay/test-support/prepared-models";
import { sample } from "@assay/test-support/tiny-models";
import { loadModel, type VerifierModel } from "@assay/verifier";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel, checkPrepared } from "../src/index.js";

describe("model check on a prepared folder", () => {
  it("passes the fitting checks and matches the original's scores", async () => {
    const { original, prepared } = await preparedPair({ fullVocab: true });
    const checks = await checkModel(prepared, { threads: 2, lengths: [500, 2100] });
    expect(checks.filter((row) => !row.passed)).toEqual([]);

    const rows = await checkPrepared(prepared, original, {
      threads: 2,
      lengths: [60, 400],
      batch: { maxBatchTokens: 2048 },
    });
    expect(rows.map((row) => row.passed)).toEqual([true, true]);
    for (const row of rows) {
      expect(row.maxDelta).toBeLessThan(1e-5);
      expect(row.preparedBytesPerRow).toBe(20 * 4);
      expect(row.originalBytesPerRow).toBeGreaterThan(1000 * row.preparedBytesPerRow);
    }
  });

  it("refuses to compare a folder that is not prepared", async () => {
    const { original } = await preparedPair({ head: "distribution" });
    await expect(checkPrepared(original, original, { lengths: [20] })).rejects.toThrow(
      /is not a prepared graph/,
    );
  });
});

describe("prepared vs original on any samples", () => {
  const models: Record<string, [VerifierModel, VerifierModel]> = {};
  beforeAll(async () => {
    for (const paddingSide of ["left", "right"] as const) {
      const pair = await preparedPair({ head: "distribution", paddingSide });
      const batch = { maxWaitMs: 20 };
      models[paddingSide] = [
        await loadModel(pair.original, { threads: 1, batch }),
        await loadModel(pair.prepared, { threads: 1, batch }),
      ];
    }
  });
  afterAll(async () => {
    for (const pair of Object.values(models)) for (const model of pair) await model.close();
  });

  it("gives the same values within 1e-5, batched with padding on either side", async () => {
    const text = (max: number) => fc.string({ minLength: 1, maxLength: max });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("left", "right"),
        fc.array(fc.tuple(text(300), text(40)), { minLength: 2, maxLength: 4 }),
        async (side, pairs) => {
          const [original, prepared] = models[side] ?? [];
          if (original === undefined || prepared === undefined) throw new Error("not loaded");
          const samples = pairs.map(([question, answer]) => sample(question, answer));
          const a = await scoreValues(original, samples, true);
          const b = await scoreValues(prepared, samples, true);
          expect(largestDelta(a, b)).toBeLessThan(1e-5);
        },
      ),
      { numRuns: 8 },
    );
  });
});
