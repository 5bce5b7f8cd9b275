const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * Whether the JSON text repeats a key within one object (JSON.parse silently keeps the
 * last value). `parsedKeys` is the number of keys in `parsed`, the text's JSON.parse result.
 *
 * Exact, and cheap in the common case. Outside strings, a colon in JSON only ever ends a
 * key, so without `\u` escapes: colons in the text = keys in the text + colons inside its
 * strings. A repeated key drops a key (and its value's strings) from the parsed value, so
 * the text's colon count equals `parsedKeys` + colons in the parsed strings exactly when no
 * key repeats. Most lines have no colon inside a string: one native scan decides. With
 * `\u` escapes (`\u003a` is a colon), the text's keys are counted by scanning its strings.
 */
export function hasDuplicateKeys(
  text: string,
  parsed: unknown,
  parsedKeys: number,
  hasUnicodeEscapes: boolean,
): boolean {
  if (hasUnicodeEscapes) return countKeysInText(text) !== parsedKeys;
  const colons = countColons(text);
  if (colons === parsedKeys) return false;
  return colons !== parsedKeys + colonsInStrings(parsed);
}

function countColons(text: string): number {
  let count = 0;
  for (let at = text.indexOf(":"); at !== -1; at = text.indexOf(":", at + 1)) count += 1;
  return count;
}

function colonsInStrings(value: unknown): number {
  if (typeof value === "string") return countColons(value);
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += colonsInStrings(item);
    return count;
  }
  for (const key in value) {
    count += countColons(key) + colonsInStrings((value as Record<string, unknown>)[key]);
  }
  return count;
}

/** Keys written in valid JSON text: each string whose closing quote is followed by `:`. */
function countKeysInText(text: string): number {
  let keys = 0;
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) {
    at = stringEnd(text, at);
    if (text.charCodeAt(skipSpace(text, at + 1)) === COLON) keys += 1;
  }
  return keys;
}

/**
 * The path of the first key that repeats within its object, for the error message; the
 * text must be valid JSON. Slow (it decodes every key) but only runs once a duplicate is known.
 */
export function findDuplicateKey(text: string): PropertyKey[] | undefined {
  // One frame per open object or list: its keys so far (objects) and where we are in it.
  const frames: { keys: Set<string> | undefined; at: PropertyKey }[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (char === '"') {
      const end = stringEnd(text, i);
      const top = frames.at(-1);
      if (top?.keys !== undefined && text.charCodeAt(skipSpace(text, end + 1)) === COLON) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return [...frames.slice(0, -1).map((frame) => frame.at), key];
        top.keys.add(key);
        top.at = key;
      }
      i = end;
    } else if (char === "{") {
      frames.push({ keys: new Set(), at: "" });
    } else if (char === "[") {
      frames.push({ keys: undefined, at: 0 });
    } else if (char === "}" || char === "]") {
      frames.pop();
    } else if (char === ",") {
      const top = frames.at(-1);
      if (top !== undefined && top.keys === undefined) top.at = (top.at as number) + 1;
    }
  }
  return undefined;
}

/** Index of the quote that closes the string opening at `open`. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1 && isEscaped(text, at)) at = text.indexOf('"', at + 1);
  return at === -1 ? text.length : at;
}

/** Whether the character at `at` follows an odd run of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

function skipSpace(text: string, from: number): number {
  let at = from;
  for (;;) {
    const code = text.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return at;
    at += 1;
  }
}
