import { AssayError } from "./assay-error.js";

/** A run spec that cannot be used: unknown scorer, bad args, malformed rule. */
export class SpecError extends AssayError {
  override name = "SpecError";
  constructor(
    readonly file: string,
    readonly where: string,
    message: string,
  ) {
    super(`${file}: ${where}: ${message}`);
  }
}
