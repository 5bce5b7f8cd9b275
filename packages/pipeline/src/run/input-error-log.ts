import { type InputError, type InputErrorSummary, printable } from "@assay/core";

/**
 * Counts the input errors of a produce and keeps the first ones for the caller to show;
 * `record` also adds each to the list of rows it belongs with (a chunk's, the join's).
 */
export class InputErrorLog {
  readonly examples: InputErrorSummary[] = [];
  count = 0;

  readonly record = (error: InputError, into: InputErrorSummary[]): void => {
    // Escaped once more, so that no message or field can be what the store refuses.
    const row = {
      file: error.file,
      line: error.line,
      field: printable(error.field),
      message: printable(error.reason),
    };
    into.push(row);
    if (this.examples.length < 10) this.examples.push(row);
    this.count += 1;
  };
}
