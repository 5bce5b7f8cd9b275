import type { Scorer, ScorerDefinition } from "@assay/core";
import { type LoadModelOptions, loadModel } from "../model/load-model.js";
import type { VerifierModel } from "../model/verifier-model.js";
import { createVerifierScorer } from "./create-verifier-scorer.js";
import { type VerifierArgs, VerifierArgsSchema } from "./verifier-args.js";

export interface VerifierScorerOptions extends LoadModelOptions {
  /** Models already loaded by the worker, matched on `args.model` (= the model's `name`). */
  models?: VerifierModel[];
}

/**
 * The `verifier` scorer (GPU pool). Models are loaded on first use and shared by every
 * scorer built from this definition, so a worker process loads each model once.
 */
export function defineVerifierScorer(
  options: VerifierScorerOptions = {},
): ScorerDefinition<VerifierArgs> {
  const models = new Map<string, Promise<VerifierModel>>();
  for (const model of options.models ?? []) models.set(model.name, Promise.resolve(model));
  const modelFor = (name: string): Promise<VerifierModel> => {
    let model = models.get(name);
    if (model === undefined) {
      model = loadModel(name, options);
      models.set(name, model);
    }
    return model;
  };
  return {
    name: "verifier",
    pool: "gpu",
    description:
      "ONNX verifier model: one forward pass per prompt, probe or score-distribution head",
    args: VerifierArgsSchema,
    create(args: VerifierArgs): Scorer {
      let scorer: Promise<Scorer> | undefined;
      return async (sample, context) => {
        scorer ??= modelFor(args.model).then((model) => createVerifierScorer(model, args));
        return (await scorer)(sample, context);
      };
    },
    async close() {
      const loaded = await Promise.allSettled(models.values());
      models.clear();
      await Promise.all(
        loaded.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)),
      );
    },
  };
}

/** The definition with default options (CPU, onnxruntime's thread count). */
export const verifierScorer: ScorerDefinition<VerifierArgs> = defineVerifierScorer();
