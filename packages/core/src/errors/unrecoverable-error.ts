import { AssayError } from "./assay-error.js";

/** A job that will fail the same way every time: the queue must not retry it. */
export class UnrecoverableJobError extends AssayError {
  override name = "UnrecoverableJobError";
}
