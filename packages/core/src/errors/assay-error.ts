/** Base of every error Assay raises on purpose. Callers branch on `instanceof`. */
export class AssayError extends Error {
  override name = "AssayError";
}
