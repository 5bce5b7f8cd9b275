import {
  ConfigError,
  RunSpecSchema,
  type ScorerDefinition,
  SpecError,
  unscored,
} from "@assay/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkSpecScorers, ScorerRegistry } from "../src/index.js";

/** A model-backed scorer in miniature: its args name a "model" the check looks at. */
function modelScorer(checked: string[]): ScorerDefinition<{ model: string }> {
  return {
    name: "judge",
    pool: "gpu",
    description: "test scorer with a model-dependent check",
    args: z.strictObject({ model: z.string() }),
    create: () => async () => unscored("error"),
    async check({ model }) {
      checked.push(model);
      if (model === "splits-tokens") {
        // Like the verifier's VerifierArgsError: a SpecError whose message reads on its own.
        throw Object.assign(new SpecError("spec", "verifier args", ""), {
          message: "head.scale: fix it",
        });
      }
      if (model === "elsewhere") throw new ConfigError("no such model folder elsewhere");
    },
  };
}

const specWith = (...models: string[]) =>
  RunSpecSchema.parse({
    rules: [{ name: "open", when: { target_type: "string" }, scorers: [{ name: "exact" }] }],
    default: {
      scorers: models.map((model, i) => ({ name: "judge", key: `j${i}`, args: { model } })),
    },
  });

describe("checkSpecScorers", () => {
  it("checks each distinct scorer once, and only scorers that have a check", async () => {
    const checked: string[] = [];
    const registry = new ScorerRegistry([modelScorer(checked) as ScorerDefinition<unknown>]);
    await checkSpecScorers(specWith("ok", "ok", "other"), "spec.yaml", registry);
    expect(checked).toEqual(["ok", "other"]);
  });

  it("refuses the spec naming the file, the scorer and what to fix", async () => {
    const registry = new ScorerRegistry([modelScorer([]) as ScorerDefinition<unknown>]);
    const check = checkSpecScorers(specWith("ok", "splits-tokens"), "spec.yaml", registry);
    await expect(check).rejects.toThrow(SpecError);
    await expect(check).rejects.toThrow("spec.yaml: default scorer #2 (judge): head.scale: fix it");
  });

  it("leaves a model it cannot reach to the caller: reported, or thrown", async () => {
    const registry = new ScorerRegistry([modelScorer([]) as ScorerDefinition<unknown>]);
    const unavailable: string[] = [];
    await checkSpecScorers(specWith("elsewhere"), "spec.yaml", registry, {
      onUnavailable: (where, error) => unavailable.push(`${where}: ${error.message}`),
    });
    expect(unavailable).toEqual(["default scorer #1 (judge): no such model folder elsewhere"]);
    await expect(checkSpecScorers(specWith("elsewhere"), "spec.yaml", registry)).rejects.toThrow(
      ConfigError,
    );
  });
});
