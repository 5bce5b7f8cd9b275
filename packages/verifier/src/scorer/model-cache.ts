import { modelIdentity } from "@assay/core/model-identity";
import type { LoadModelOptions } from "../model/load-model.js";
import type { VerifierModel } from "../model/verifier-model.js";

export interface ModelCacheOptions extends LoadModelOptions {
  /**
   * Models already loaded by the worker, matched on `args.model`: any spelling of the
   * model's `name` (`./m`, `m/`) finds it.
   */
  models?: VerifierModel[];
  /** Called once per model this cache loads, e.g. to log the settings it runs with. */
  onLoad?: (model: VerifierModel) => void;
}

/**
 * Models loaded on first use and shared by every scorer built over this cache, so a worker
 * process loads each model once, whether it scores answers, pairs of answers or both.
 */
export interface ModelCache {
  modelFor(name: string): Promise<VerifierModel>;
  close(): Promise<void>;
}

export function modelCache(options: ModelCacheOptions = {}): ModelCache {
  const models = new Map<string, Promise<VerifierModel>>();
  // Keyed by identity: two spellings of one folder must not load it twice.
  for (const model of options.models ?? []) {
    models.set(model.identity, Promise.resolve(model));
  }
  return {
    modelFor(name) {
      const identity = modelIdentity(name);
      let model = models.get(identity);
      if (model === undefined) {
        // Imported here: the loader brings onnxruntime and the tokenizers, which a process
        // that never scores with a model (`assay run` with deterministic scorers) skips.
        model = import("../model/load-model.js")
          .then(({ loadModel }) => loadModel(name, options))
          .then((loaded) => {
            options.onLoad?.(loaded);
            return loaded;
          });
        models.set(identity, model);
      }
      return model;
    },
    async close() {
      // Taken and cleared before the first await: the verifier and pairwise definitions
      // share this cache and both close it, at the same time, when the registry closes.
      const pending = [...models.values()];
      models.clear();
      const loaded = await Promise.allSettled(pending);
      await Promise.all(
        loaded.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)),
      );
    },
  };
}
