import { describe, expect, it } from "vitest";
import { importOptional } from "../src/optional-import.js";

// The GPU image carries no @assay/model-tools and the CPU workers need no @assay/verifier:
// a package that is not installed reads as absent, any other failure still throws.
describe("importOptional", () => {
  it("is undefined for a package that is not installed", async () => {
    const name = "@assay/not-installed";
    expect(await importOptional(() => import(name))).toBeUndefined();
  });

  it("gives the module of an installed package", async () => {
    const name = "@assay/core";
    expect(await importOptional(() => import(name))).toHaveProperty("sigmoid");
  });

  it("passes on any other failure", async () => {
    await expect(
      importOptional(() => Promise.reject(new Error("syntax error in the module"))),
    ).rejects.toThrow("syntax error in the module");
  });
});
