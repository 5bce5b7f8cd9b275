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
    this.reason = boundedInputErrorText(details.message);
  }
}

/**
 * The most characters of a field path or a message an input error shows. A message may
 * quote the dataset, and one line of a dataset may be a megabyte: it is shown, logged and
 * stored once per bad line, so what it quotes is cut, saying how much was left out.
 */
export const INPUT_ERROR_PART_MAX = 1000;

/**
 * `file:line: field \`a.b\`: message`, the one way an input error is shown. Every part may
 * quote the dataset (ids, a snippet of malformed JSON), so control characters are escaped
 * (the line is printed to terminals and must stay one line) and each part is bounded.
 */
export function describeInputError(details: InputErrorDetails): string {
  const file = escapeTerminal(details.file);
  const where = details.line > 0 ? `${file}:${details.line}` : file;
  const field =
    details.field === ""
      ? ""
      : ` field \`${escapeTerminal(boundedInputErrorText(details.field))}\`:`;
  return `${where}:${field} ${escapeTerminal(boundedInputErrorText(details.message))}`;
}

/** Room for the note a cut part ends with, so that a part cut once is not cut again. */
const CUT_NOTE_ROOM = 40;

/**
 * `text` up to INPUT_ERROR_PART_MAX characters, then how many more it had; a text at most
 * CUT_NOTE_ROOM over the bound (one cut already) is kept as it is.
 */
export function boundedInputErrorText(text: string): string {
  if (text.length <= INPUT_ERROR_PART_MAX + CUT_NOTE_ROOM) return text;
  // Cut between UTF-16 halves of one character would leave a lone surrogate: step back.
  let end = INPUT_ERROR_PART_MAX;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}
