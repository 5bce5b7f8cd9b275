import { AssayError } from "./assay-error.js";

/** Something asked for by name (a run id) is not in the store; the message names it. */
export class NotFoundError extends AssayError {
  override name = "NotFoundError";
}
