import { AssayError } from "./assay-error.js";

export interface InputErrorDetails {
  file: string;
  /** 1-based line; 0 when the problem is the file as a whole. */
  line: number;
  /** Dotted path of the offending field, or "" for the whole line. */
  field: string;
  message: string;
}

/** A dataset line (or the dataset file) that cannot be used. Never retried. */
export class InputError extends AssayError {
  override name = "InputError";
  readonly file: string;
  readonly line: number;
  readonly field: string;
  readonly reason: string;

  constructor(details: InputErrorDetails) {
    super(describeInputError(details));
    this.file = details.file;
    this.line = details.line;
    this.field = details.field;
    this.reason = details.message;
  }
}

/** `file:line: field \`a.b\`: message`, the one way an input error is shown. */
export function describeInputError(details: InputErrorDetails): string {
  const where = details.line > 0 ? `${details.file}:${details.line}` : details.file;
  const field = details.field === "" ? "" : ` field \`${details.field}\`:`;
  return `${where}:${field} ${details.message}`;
}
