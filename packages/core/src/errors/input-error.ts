import { escapeTerminal } from "../safe-text/terminal-text.js";
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

/**
 * `file:line: field \`a.b\`: message`, the one way an input error is shown. Every part may
 * quote the dataset (ids, a snippet of malformed JSON), so control characters are escaped:
 * the line is printed to terminals and must stay one line.
 */
export function describeInputError(details: InputErrorDetails): string {
  const file = escapeTerminal(details.file);
  const where = details.line > 0 ? `${file}:${details.line}` : file;
  const field = details.field === "" ? "" : ` field \`${escapeTerminal(details.field)}\`:`;
  return `${where}:${field} ${escapeTerminal(details.message)}`;
}
