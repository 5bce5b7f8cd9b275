import { AssayError } from "@assay/core";

/** A resume refused because the run was made from another dataset or spec (exit 3). */
export class RunChangedError extends AssayError {
  override name = "RunChangedError";
}
