import { defaultRegistry, ScorerRegistry } from "@assay/scorers";
import { importOptional, importRequired } from "./optional-import.js";
import type { DeviceName } from "./options.js";
import type { FileDownload } from "./progress/download-view.js";
import type { VerifierTuning } from "./verifier-tuning.js";

type VerifierPackage = typeof import("@assay/verifier");
type VerifierModel = import("@assay/verifier/scorers").VerifierModel;

export interface VerifierSettings extends VerifierTuning {
  /** Default cpu. */
  device?: DeviceName;
  /** onnxruntime intra-op threads. */
  threads?: number;
  /** Models loaded already (a GPU worker loads its model before taking jobs). */
  models?: VerifierModel[];
  /** Called once per model the registry loads (not for `models`). */
  onLoad?: (model: VerifierModel) => void;
  /** Draws a hub model's download (see progress/download-view.ts). */
  onDownloadProgress?: (progress: FileDownload) => void;
}

/**
 * The deterministic scorers plus, where @assay/verifier is installed, the `verifier` and
 * `pairwise` scorers (one model cache: a model both use loads once). Only their definitions
 * are imported here; onnxruntime, the tokenizers and the model code load when a scorer
 * first needs its model, so a run of deterministic scorers never loads them, and a CPU
 * worker's deployable image does not need the package at all.
 */
export async function scorerRegistry(verifier: VerifierSettings | false): Promise<ScorerRegistry> {
  if (verifier === false) return defaultRegistry();
  const pkg = await importOptional(() => import("@assay/verifier/scorers"));
  if (pkg === undefined) return defaultRegistry();
  const definitions = pkg.defineVerifierScorers({
    ...(verifier.device !== undefined && { device: verifier.device }),
    ...(verifier.threads !== undefined && { threads: verifier.threads }),
    ...(verifier.models !== undefined && { models: verifier.models }),
    ...(verifier.batch !== undefined && { batch: verifier.batch }),
    ...(verifier.reusePrefixes !== undefined && { reusePrefixes: verifier.reusePrefixes }),
    ...(verifier.onLoad !== undefined && { onLoad: verifier.onLoad }),
    ...(verifier.onDownloadProgress !== undefined && {
      onDownloadProgress: verifier.onDownloadProgress,
    }),
  });
  return new ScorerRegistry(definitions);
}

/** The verifier package, or a clear error where it is not installed. */
export function requireVerifier(): Promise<VerifierPackage> {
  return importRequired(
    () => import("@assay/verifier"),
    "The verifier needs @assay/verifier (and onnxruntime-node), which is not installed here; " +
      "install it, or run verifier work on the GPU worker image.",
  );
}
