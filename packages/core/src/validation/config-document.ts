import { findDuplicateKey } from "./duplicate-keys.js";
import { checkJsonValue, type JsonProblem } from "./json-walk.js";

/**
 * A configuration document (a run spec, a model's assay.json) is input too: it gets the
 * checks a dataset line gets (see `checkJsonValue`), so a key written twice or a
 * `__proto__` key cannot silently change what it means.
 */
export type ParsedConfig =
  | { ok: true; value: unknown }
  /** `value` is what the text parsed to, when it did (to name a rule in a message). */
  | ({ ok: false; value: unknown } & JsonProblem);

export const DUPLICATE_KEY_MESSAGE =
  "this key appears twice in one object (only the last value would be kept); remove one";

/**
 * Parses JSON configuration text and checks it. A message never quotes the text: the
 * file may not be the one its reader meant to open, so it names a line and column instead.
 */
export function parseJsonConfig(text: string): ParsedConfig {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { ok: false, value: undefined, path: [], message: parsed.message };
  const value = parsed.value;
  const problem = configValueProblem(value);
  if (problem !== undefined) return { ok: false, value, ...problem };
  // Configuration files are small: finding the first repeated key costs one scan.
  const repeated = findDuplicateKey(text);
  if (repeated !== undefined) {
    return { ok: false, value, path: repeated, message: DUPLICATE_KEY_MESSAGE };
  }
  return { ok: true, value };
}

/** JSON.parse, with a message that never quotes the text (see `jsonSyntaxMessage`). */
export function parseJsonText(
  text: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: jsonSyntaxMessage(error, text) };
  }
}

/**
 * What a parsed configuration value may not hold, as for a dataset line: NUL or lone
 * surrogates, nesting past the limit, unreadable numbers (NaN and infinities included,
 * which YAML can spell), `__proto__` keys. Every string is checked: documents are small.
 */
export function configValueProblem(value: unknown): JsonProblem | undefined {
  return checkJsonValue(value, true).problem;
}

/**
 * V8's message without the piece of text it quotes (`Unexpected token 'T', "TOP SECRET"
 * is not valid JSON`): where it gives a position, the line and column of it.
 */
function jsonSyntaxMessage(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : "";
  const position = /at position (\d+)/.exec(message);
  if (text.trim() === "") return "not valid JSON: the file is empty";
  if (position === null) return "not valid JSON: unexpected text or end of file";
  const at = Number(position[1]);
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  const reason = /^[A-Z][\w ,:'{}[\]-]*?(?= in JSON| after JSON)/.exec(message)?.[0];
  const what = reason === undefined ? "" : `${reason.toLowerCase()} `;
  return `not valid JSON: ${what}at line ${line}, column ${column}`;
}
