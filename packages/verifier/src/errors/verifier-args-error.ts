import { SpecError } from "@assay/core";

/**
 * Scorer arguments that cannot work with the loaded model (e.g. K>1 with one variant): the
 * spec must change, not the environment, so it is a spec error (exit 3), not a
 * configuration error.
 */
export class VerifierArgsError extends SpecError {
  override name = "VerifierArgsError";
  constructor(message: string) {
    super("spec", "verifier args", message);
    // The message reads on its own: job error rows prefix it with the scorer's name.
    this.message = message;
  }
}
