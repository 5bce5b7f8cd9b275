import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { tempRoot } from "@assay/test-support/tiny-models";
import { afterEach, describe, expect, it } from "vitest";
import { loadModel, type VerifierModel } from "../src/index.js";

/** A tiny with-past decoder whose assay.json carries `extra`. */
async function modelWith(name: string, extra: Record<string, unknown>): Promise<string> {
  const dir = await makeTinyModel(join(tempRoot, name), { withPast: true });
  const file = join(dir, "assay.json");
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), ...extra }));
  return dir;
}

describe("batch limits and prefix reuse: loader option > assay.json > default", () => {
  const loaded: VerifierModel[] = [];
  const load = async (...args: Parameters<typeof loadModel>) => {
    const model = await loadModel(...args);
    loaded.push(model);
    return model;
  };
  afterEach(async () => {
    await Promise.all(loaded.splice(0).map((model) => model.close()));
  });

  it("uses the defaults when neither says", async () => {
    const model = await load(await modelWith("plain", {}), { threads: 1 });
    expect(model.batchOptions).toEqual({ maxBatchTokens: 16_384, maxBatchRows: 64 });
    expect(model.reusesPrefixes).toBe(true);
  });

  it("takes assay.json's batch and prefix_reuse", async () => {
    const dir = await modelWith("tuned", {
      batch: { max_tokens: 4096, max_rows: 8 },
      prefix_reuse: false,
    });
    const model = await load(dir, { threads: 1 });
    expect(model.batchOptions).toEqual({ maxBatchTokens: 4096, maxBatchRows: 8 });
    expect(model.reusesPrefixes).toBe(false);
  });

  it("lets each loader option win over assay.json, field by field", async () => {
    const dir = await modelWith("overridden", {
      batch: { max_tokens: 4096, max_rows: 8 },
      prefix_reuse: false,
    });
    const model = await load(dir, {
      threads: 1,
      batch: { maxBatchRows: 2 },
      reusePrefixes: true,
    });
    expect(model.batchOptions).toEqual({ maxBatchTokens: 4096, maxBatchRows: 2 });
    expect(model.reusesPrefixes).toBe(true);
  });

  it("refuses a limit that is not a positive integer, naming the field", async () => {
    const dir = await modelWith("bad", { batch: { max_tokens: 0 } });
    await expect(loadModel(dir, { threads: 1 })).rejects.toThrow(/batch\.max_tokens/);
  });
});
