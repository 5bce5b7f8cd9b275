import type * as PrepareModule from "./prepare/prepare-model.js";
import type * as TinyModule from "./tiny/make-tiny-model.js";

// Writing ONNX graphs (tiny models, prepared graphs) needs onnx-proto, which takes about
// 150 ms and 13 MB to load. `assay model check` and the probe commands import this package
// but never write a graph, so these two entry points load their modules on first call only.

/** Writes a tiny verifier model for tests and examples; see `make-tiny-model.ts`. */
export async function makeTinyModel(
  ...args: Parameters<typeof TinyModule.makeTinyModel>
): ReturnType<typeof TinyModule.makeTinyModel> {
  const { makeTinyModel: make } = await import("./tiny/make-tiny-model.js");
  return make(...args);
}

/** Rewrites an exported model so it returns only what the head reads; see `prepare-model.ts`. */
export async function prepareModel(
  ...args: Parameters<typeof PrepareModule.prepareModel>
): ReturnType<typeof PrepareModule.prepareModel> {
  const { prepareModel: prepare } = await import("./prepare/prepare-model.js");
  return prepare(...args);
}
