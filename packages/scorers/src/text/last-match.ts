/**
 * Where the last match of `pattern` ends in `text`, or undefined when it does not match.
 * `pattern` must be global and never match empty text (a marker). `test` moves `lastIndex`
 * to each match's end without building a match array; `matchAll` would build one per match
 * and copy the pattern on every call. It ends with `lastIndex` back at 0.
 */
export function endOfLastMatch(pattern: RegExp, text: string): number | undefined {
  let end: number | undefined;
  pattern.lastIndex = 0;
  while (pattern.test(text)) end = pattern.lastIndex;
  return end;
}
