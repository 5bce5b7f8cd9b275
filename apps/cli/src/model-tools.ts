import { importRequired } from "./optional-import.js";

type ModelToolsPackage = typeof import("@assay/model-tools");

/**
 * The operator's model tools (model check, prepare, make-tiny, probe fitting), or a clear
 * error where they are not installed: the GPU worker's image carries the verifier only.
 */
export function requireModelTools(): Promise<ModelToolsPackage> {
  return importRequired(
    () => import("@assay/model-tools"),
    "This command needs @assay/model-tools (and @assay/verifier), which is not installed here; " +
      "install it, or run it from a checkout of assay.",
  );
}
