import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { sample, tempRoot } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";
import { createVerifierScorer, loadModel } from "../src/index.js";

describe("assay.json family", () => {
  it("travels with every score, so reports can check self-preference", async () => {
    const dir = await makeTinyModel(join(tempRoot, "family"), { kind: "encoder" });
    const file = join(dir, "assay.json");
    const config = JSON.parse(await readFile(file, "utf8"));
    const score = async () => {
      const model = await loadModel(dir, { threads: 1 });
      try {
        return await createVerifierScorer(model, { model: dir })(sample("q", "a"), {});
      } finally {
        await model.close();
      }
    };
    expect((await score()).detail).not.toHaveProperty("family");
    await writeFile(file, JSON.stringify({ ...config, family: "qwen" }));
    expect((await score()).detail).toMatchObject({ family: "qwen" });
  });
});
