import { isPythonWhitespace } from "./python-whitespace.js";

/** Which ends `pythonStrip` strips: `strip`, `lstrip` or `rstrip`. */
export type StripSide = "both" | "left" | "right";

/**
 * Python's `text.strip(chars)` (`lstrip`, `rstrip` for the sides): with `chars` null, the
 * ends lose their whitespace as `str.isspace()` defines it; otherwise they lose every code
 * point that is in `chars` (a set, not a prefix: `"\n\r\nA".strip("\n")` keeps `"\r\nA"`).
 * Code points, not UTF-16 units, as Python counts them: an emoji in `chars` strips the
 * emoji, and a lone surrogate is a code point of its own.
 */
export function pythonStrip(text: string, chars: string | null, side: StripSide): string {
  const strips = chars === null ? isPythonWhitespace : memberOf(chars);
  let start = 0;
  let end = text.length;
  if (side !== "right") {
    while (start < end) {
      const codePoint = text.codePointAt(start) as number;
      if (!strips(codePoint)) break;
      start += codePoint > 0xffff ? 2 : 1;
    }
  }
  if (side !== "left") {
    while (end > start) {
      const codePoint = codePointBefore(text, end, start);
      if (!strips(codePoint)) break;
      end -= codePoint > 0xffff ? 2 : 1;
    }
  }
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Python's `text.split(sep, maxsplit)`: with `sep` null, the words between runs of
 * whitespace (`str.isspace()`), no empty ones; otherwise the pieces between each `sep`,
 * empty ones included. At most `maxsplit` splits when it is 0 or more; the rest of the text
 * is the last piece (after its leading whitespace, when `sep` is null).
 */
export function pythonSplit(text: string, sep: string | null, maxsplit: number): string[] {
  if (sep === null) return splitOnWhitespace(text, maxsplit);
  if (sep === "")
    throw new Error("split(): empty separator (give a separator, or none to split on whitespace)");
  const pieces = text.split(sep);
  if (maxsplit < 0 || pieces.length <= maxsplit + 1) return pieces;
  return [...pieces.slice(0, maxsplit), pieces.slice(maxsplit).join(sep)];
}

function splitOnWhitespace(text: string, maxsplit: number): string[] {
  // Every whitespace code point is in the BMP, so UTF-16 units can be tested one by one.
  const words: string[] = [];
  let at = 0;
  for (;;) {
    while (at < text.length && isPythonWhitespace(text.charCodeAt(at))) at++;
    if (at === text.length) return words;
    if (maxsplit >= 0 && words.length === maxsplit) {
      words.push(text.slice(at));
      return words;
    }
    const start = at;
    while (at < text.length && !isPythonWhitespace(text.charCodeAt(at))) at++;
    words.push(text.slice(start, at));
  }
}

function memberOf(chars: string): (codePoint: number) => boolean {
  if (chars.length === 1) {
    const only = chars.charCodeAt(0);
    return (codePoint) => codePoint === only;
  }
  const set = new Set<number>();
  for (const char of chars) set.add(char.codePointAt(0) as number);
  return (codePoint) => set.has(codePoint);
}

/** The code point that ends at `end`, a surrogate pair read whole unless it starts before `start`. */
function codePointBefore(text: string, end: number, start: number): number {
  const last = text.charCodeAt(end - 1);
  if (last >= 0xdc00 && last <= 0xdfff && end - 2 >= start) {
    const first = text.charCodeAt(end - 2);
    if (first >= 0xd800 && first <= 0xdbff)
      return (first - 0xd800) * 0x400 + (last - 0xdc00) + 0x10000;
  }
  return last;
}
