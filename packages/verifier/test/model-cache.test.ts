import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { modelIdentity } from "@assay/core/model-identity";
import { afterAll, describe, expect, it } from "vitest";
import type { VerifierModel } from "../src/model/verifier-model.js";
import { modelCache } from "../src/scorer/model-cache.js";

const root = mkdtempSync(join(tmpdir(), "assay-model-cache-"));
const folder = join(root, ".models", "x");
mkdirSync(folder, { recursive: true });
symlinkSync(folder, join(root, "linked"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a GPU worker's loaded model", () => {
  it("serves the jobs that spell it another way, without loading it again", async () => {
    // What `assay worker --model ./.models/x` loaded; a second load would fail here (the
    // folder holds no model), so each job must find this one.
    // Its identity as `VerifierModel`'s constructor works it out from the worker's spelling.
    const name = `./${relative(process.cwd(), folder)}`;
    const loaded = { name, identity: modelIdentity(name) } as VerifierModel;
    const cache = modelCache({ models: [loaded] });
    for (const spelling of [relative(process.cwd(), folder), `${folder}/`, join(root, "linked")]) {
      expect(await cache.modelFor(spelling)).toBe(loaded);
    }
  });
});
