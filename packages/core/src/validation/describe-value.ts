import { unicodeEscape } from "../safe-text/terminal-text.js";

/** How a received value is named in a message: `1.5`, `true`, `null`, `"abc…"`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty list" : "a list";
  switch (typeof value) {
    case "string":
      return value === "" ? "an empty string" : quoteText(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

const QUOTED_MAX = 40;
// Characters that would hide, reorder or break a message, or that a database refuses:
// controls, format characters (zero-width, bidi), line separators and lone surrogates.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * A string as it may appear in a message: in double quotes, cut to 40 characters, with
 * every unprintable character written as `\uXXXX`. Messages are stored, so they must hold
 * nothing the store refuses either.
 */
export function quoteText(text: string, max = QUOTED_MAX): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return `"${printable(cut)}"`;
}

/** The text with every unprintable character written as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, unicodeEscape);
}

/** `U+200B` for the first unprintable character of `text`, with its position; or undefined. */
export function firstUnprintable(text: string): { char: string; index: number } | undefined {
  UNPRINTABLE.lastIndex = 0;
  const found = UNPRINTABLE.exec(text);
  UNPRINTABLE.lastIndex = 0;
  if (found === null) return undefined;
  const code = found[0].codePointAt(0) ?? 0;
  return { char: `U+${hex4(code)}`, index: found.index };
}

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}
