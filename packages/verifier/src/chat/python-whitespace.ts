/**
 * The code points where Python's `str.isspace()` is true: what `str.strip()`, `lstrip()`,
 * `rstrip()` and `split()` without an argument treat as whitespace, and so what Jinja's
 * `trim` filter strips. It is not JavaScript's `\s`: Python adds U+001C–U+001F (the
 * information separators) and U+0085 (NEL), and leaves out U+FEFF (BOM), which
 * `String.prototype.trim` strips. Made with Python 3.11.7 (Unicode 14.0.0):
 *
 *     python3 -c "print([hex(c) for c in range(0x110000) if chr(c).isspace()])"
 *
 * test/fixtures/chat/make-fixtures.py writes the same list, made by the Python that makes
 * the reference renderings, and python-strings.test.ts checks this one against it.
 */
export const PYTHON_WHITESPACE: readonly number[] = [
  0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f,
  0x3000,
];

const WHITESPACE = new Set(PYTHON_WHITESPACE);

/** Whether Python's `chr(codePoint).isspace()` is true. */
export function isPythonWhitespace(codePoint: number): boolean {
  // Most text is printable ASCII, none of it whitespace but the space.
  if (codePoint > 0x20 && codePoint < 0x85) return false;
  return WHITESPACE.has(codePoint);
}
