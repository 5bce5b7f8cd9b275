/**
 * Characters that must not reach a terminal raw: C0 controls (ESC starts colour, cursor
 * and title sequences; CR overwrites a line), DEL, C1 controls (U+009B is a one-character
 * CSI on some terminals), bidirectional overrides, isolates and marks (they reorder what
 * the reader sees, "Trojan Source"), and the Unicode line and paragraph separators.
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_NEWLINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export interface EscapeTerminalOptions {
  /** Keep `\n` as it is: for multi-line output (tables, pretty JSON) built by Assay. */
  keepNewlines?: boolean;
}

/**
 * Text for a terminal, with every unsafe character written as a `\uXXXX` escape. The
 * escape is also JSON's, so JSON text stays valid JSON with the same value.
 */
export function escapeTerminal(text: string, options: EscapeTerminalOptions = {}): string {
  return text.replace(options.keepNewlines === true ? UNSAFE_BUT_NEWLINE : UNSAFE, unicodeEscape);
}

/** One UTF-16 unit as a `\uXXXX` escape, the form JSON and JavaScript read back. */
export function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
