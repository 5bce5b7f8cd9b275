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
  // One scorer per distinct args: `check` builds it (so the args are checked against the
  // model once, before a run) and every sample of a run then uses that same scorer.
  const scorers = new Map<string, Promise<Scorer>>();
  const scorerFor = (args: VerifierArgs): Promise<Scorer> => {
    const key = JSON.stringify(args);
    let scorer = scorers.get(key);
    if (scorer === undefined) {
      scorer = modelFor(args.model).then((model) => createVerifierScorer(model, args));
      scorers.set(key, scorer);
    }
    return scorer;
  };
  return {
    name: "verifier",
    pool: "gpu",
    description:
      "ONNX verifier model: one forward pass per prompt, probe or score-distribution head",
    args: VerifierArgsSchema,
    create(args: VerifierArgs): Scorer {
      return async (sample, context) => (await scorerFor(args))(sample, context);
    },
    /** Loads the model and builds the scorer: VerifierArgsError (a SpecError) when they clash. */
    async check(args: VerifierArgs): Promise<void> {
      await scorerFor(args);
    },
    async close() {
      const loaded = await Promise.allSettled(models.values());
      models.clear();
      scorers.clear();
      await Promise.all(
        loaded.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)),
      );
    },
  };
}

/** The definition with default options (CPU, onnxruntime's thread count). */
export const verifierScorer: ScorerDefinition<VerifierArgs> = defineVerifierScorer();
