import { ConfigError } from "@assay/core";

/** Scorer arguments that cannot work with the loaded model (e.g. K>1 with one variant). */
export class VerifierArgsError extends ConfigError {
  override name = "VerifierArgsError";
}
