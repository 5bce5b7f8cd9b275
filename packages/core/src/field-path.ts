import { formatPath } from "./zod-issues.js";

/**
 * One step of a column path: an object key; an index into a list (negative counts from
 * the end, so `-1` is the last item); or a filter keeping the list's items whose `key`
 * holds the text `equals` (`[role=user]`, the turns of one role in a chat).
 */
export type PathStep = string | number | ItemFilter;
export interface ItemFilter {
  key: string;
  equals: string;
}

export type ParsedPath = { ok: true; steps: PathStep[] } | { ok: false; message: string };

// A bare key runs to the next dot or bracket; quotes are reserved for the bracket form.
const BARE_KEY = /^[^.[\]"]+/;
const INDEX = /^\[(0|-?[1-9]\d*)\]/;
// `[role=user]`: a bare key, then a bare value or a JSON string.
const FILTER = /^\[([^.[\]"=]+)=(?:([^[\]"]+)|("(?:[^"\\]|\\.)*"))\]/;

/**
 * Reads a column path as the spec writes it: keys joined by dots (`completion.text`),
 * `[n]` for the item of a list (`outputs[0]`; `[-1]` is the last), `[key=value]` for the
 * items of a list whose `key` is `value` (`messages[role=user][-1]`: the last user turn),
 * and `["…"]` for a key that holds a dot, a bracket or a quote (`meta["v1.2"]`, a JSON
 * string inside the brackets). It is the form error messages use for a field, so a path
 * copied from a message reads back the same.
 */
export function parseFieldPath(path: string): ParsedPath {
  if (path === "") return refuse("the path is empty; name the dataset's column");
  const steps: PathStep[] = [];
  let rest = path;
  while (rest !== "") {
    const first = steps.length === 0;
    if (!first && rest.startsWith(".")) {
      const key = BARE_KEY.exec(rest.slice(1))?.[0];
      if (key === undefined) return refuse(`a key must follow the dot at ${at(path, rest)}`);
      steps.push(key);
      rest = rest.slice(1 + key.length);
      continue;
    }
    if (rest.startsWith("[")) {
      const step = bracketStep(rest);
      if (step === undefined) {
        return refuse(
          `expected [<index>], [<key>=<value>] or ["<key>"] at ${at(path, rest)}; a key with a dot is written ["a.b"]`,
        );
      }
      steps.push(step.value);
      rest = rest.slice(step.length);
      continue;
    }
    const key = first ? BARE_KEY.exec(rest)?.[0] : undefined;
    if (key === undefined) {
      return refuse(`unexpected ${JSON.stringify(rest[0])} at ${at(path, rest)}`);
    }
    steps.push(key);
    rest = rest.slice(key.length);
  }
  return { ok: true, steps };
}

/** `[3]`, `[-1]`, `[role=user]` or `["a.b"]` at the start of `text`: its step and length. */
function bracketStep(text: string): { value: PathStep; length: number } | undefined {
  const index = INDEX.exec(text);
  if (index !== null) return { value: Number(index[1]), length: index[0].length };
  const filter = FILTER.exec(text);
  if (filter !== null) {
    const equals = filter[2] ?? jsonString(filter[3] ?? "");
    if (equals === undefined) return undefined;
    return { value: { key: filter[1] as string, equals }, length: filter[0].length };
  }
  if (text[1] !== '"') return undefined;
  const close = closingQuote(text, 2);
  if (close === -1 || text[close + 1] !== "]") return undefined;
  try {
    const key: unknown = JSON.parse(text.slice(1, close + 1));
    return typeof key === "string" && key !== "" ? { value: key, length: close + 2 } : undefined;
  } catch {
    return undefined;
  }
}

/** Index of the quote that ends the JSON string whose text starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function jsonString(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A path as the spec writes it (and messages quote it): `messages[role=user][-1].content`. */
export function formatFieldPath(steps: readonly PathStep[]): string {
  let out = "";
  for (const step of steps) {
    if (typeof step === "object") {
      const bare = /^[^[\]"]+$/.test(step.equals);
      out += `[${step.key}=${bare ? step.equals : JSON.stringify(step.equals)}]`;
      continue;
    }
    // formatPath writes a key bare or as ["…"], and an index as [n].
    const written = formatPath([step]);
    out += out === "" || written.startsWith("[") ? written : `.${written}`;
  }
  return out;
}

function at(path: string, rest: string): string {
  return `character ${path.length - rest.length + 1}`;
}

function refuse(message: string): ParsedPath {
  return { ok: false, message };
}
