import type { Template } from "@huggingface/jinja";
import { pythonSplit, pythonStrip, type StripSide } from "./python-str.js";

/**
 * @huggingface/jinja strips by JavaScript's rules: `strip`, `lstrip` and `rstrip` ignore
 * their argument (`content.lstrip('\n')` strips spaces and `\r` too) and they, the `trim`
 * filter and `split()` read whitespace as `\s` (BOM yes; NEL and U+001C–U+001F no). Python's
 * jinja2, which transformers renders chat templates with, calls Python's `str` methods. So a
 * compiled template is rewritten once here: each call of one of those methods, and each
 * `trim` filter, becomes a call of a global below that does what Python does. Nothing
 * changes at render time but the function called, and the library stays as published (its
 * runtime values and filters are not exported to be replaced; 0.5.13 strips as 0.5.11 does).
 * Left as the library has them: `{% filter trim %}` blocks (no chat template we know writes
 * one), and a call of `.strip()` on a dict with a `strip` key, which now refuses to render.
 */
export function callPythonStrings(template: Template): Template {
  template.parsed = rewrite(template.parsed) as Template["parsed"];
  return template;
}

/** The globals the rewritten calls name; a name with a dot is one no template can shadow. */
export const PYTHON_STRING_GLOBALS: Record<string, (...args: unknown[]) => unknown> = {
  "str.strip": stripMethod("strip", "both"),
  "str.lstrip": stripMethod("lstrip", "left"),
  "str.rstrip": stripMethod("rstrip", "right"),
  "str.split": splitMethod,
  "filter.trim": trimFilter,
};

const METHOD_GLOBALS = new Map([
  ["strip", "str.strip"],
  ["lstrip", "str.lstrip"],
  ["rstrip", "str.rstrip"],
  ["split", "str.split"],
]);

/** A node of the library's syntax tree, as its interpreter reads it (by `type`). */
interface SyntaxNode {
  type: string;
  [field: string]: unknown;
}

const isNode = (value: unknown): value is SyntaxNode =>
  typeof value === "object" && value !== null && typeof (value as SyntaxNode).type === "string";

/** The tree with its children rewritten first, then the node itself. */
function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = rewrite(value[i]);
    return value;
  }
  if (!isNode(value)) return value;
  for (const field of Object.keys(value)) {
    if (field !== "type") value[field] = rewrite(value[field]);
  }
  return asMethodCall(value) ?? asTrimCall(value) ?? value;
}

/** `text.strip(args)` → `str.strip(text, args)` (and lstrip, rstrip, split). */
function asMethodCall(node: SyntaxNode): SyntaxNode | null {
  if (node.type !== "CallExpression" || !isNode(node.callee)) return null;
  const { callee } = node;
  if (callee.type !== "MemberExpression" || callee.computed !== false) return null;
  const property = callee.property as SyntaxNode;
  const global =
    property.type === "Identifier" ? METHOD_GLOBALS.get(property.value as string) : undefined;
  if (global === undefined) return null;
  return call(global, [callee.object, ...(node.args as unknown[])]);
}

/** `text | trim` and `text | trim(chars)` → `filter.trim(text[, chars])`. */
function asTrimCall(node: SyntaxNode): SyntaxNode | null {
  if (node.type !== "FilterExpression" || !isNode(node.filter)) return null;
  const { filter } = node;
  if (filter.type === "Identifier" && filter.value === "trim")
    return call("filter.trim", [node.operand]);
  const callee = filter.callee as SyntaxNode | undefined;
  if (
    filter.type === "CallExpression" &&
    callee?.type === "Identifier" &&
    callee.value === "trim"
  ) {
    return call("filter.trim", [node.operand, ...(filter.args as unknown[])]);
  }
  return null;
}

function call(global: string, args: unknown[]): SyntaxNode {
  return { type: "CallExpression", callee: { type: "Identifier", value: global }, args };
}

// The globals receive the call's values as JavaScript values: a string, a number, and
// undefined for `none` as for an undefined variable (the library passes both so), so either
// reads as Python's None. Keyword arguments come as a last Map whose entries are still the
// library's runtime values (`.value` unwraps); a dict passed last would read as one too, but
// no string method takes a dict.

/**
 * The call's arguments bound to `params` as Python binds them, refusing what Python
 * refuses (too many, an unknown or repeated keyword, keywords where `str` takes none);
 * undefined where not given.
 */
function bind(
  name: string,
  args: unknown[],
  params: readonly string[],
  keywords: boolean,
): unknown[] {
  const named = args.at(-1) instanceof Map ? (args.pop() as Map<string, { value: unknown }>) : null;
  if (args.length > params.length) {
    throw new Error(
      `${name}() takes at most ${params.length} argument${params.length === 1 ? "" : "s"} (${args.length} given)`,
    );
  }
  const bound = params.map((_, i) => args[i]);
  for (const [key, value] of named ?? []) {
    const at = params.indexOf(key);
    if (!keywords) throw new Error(`${name}() takes no keyword arguments`);
    if (at < 0) {
      throw new Error(
        `${name}() got an unexpected keyword argument '${key}' (it takes ${params.join(", ")})`,
      );
    }
    if (at < args.length) throw new Error(`${name}() got multiple values for argument '${key}'`);
    bound[at] = value.value;
  }
  return bound;
}

function stripMethod(name: string, side: StripSide) {
  return (text: unknown, ...args: unknown[]): string => {
    const [chars] = bind(name, args, ["chars"], false);
    return pythonStrip(textOf(text, `.${name}()`), charsOf(name, chars), side);
  };
}

/** Jinja's `trim(value, chars=None)`: `str(value).strip(chars)`. */
function trimFilter(text: unknown, ...args: unknown[]): string {
  const [chars] = bind("trim", args, ["chars"], true);
  return pythonStrip(textOf(text, "| trim"), charsOf("trim", chars), "both");
}

function splitMethod(text: unknown, ...args: unknown[]): string[] {
  const [sep, maxsplit] = bind("split", args, ["sep", "maxsplit"], true);
  const separator = sep ?? null;
  if (typeof separator !== "string" && separator !== null) {
    throw new Error(`split() sep must be a string or none, got ${describe(separator)}`);
  }
  const limit = maxsplit ?? -1;
  if (typeof limit !== "number" || !Number.isInteger(limit)) {
    throw new Error(`split() maxsplit must be an integer, got ${describe(limit)}`);
  }
  return pythonSplit(textOf(text, ".split()"), separator, limit);
}

function charsOf(name: string, chars: unknown): string | null {
  if (chars === undefined || chars === null) return null;
  if (typeof chars === "string") return chars;
  throw new Error(`${name}() argument must be a string or none, got ${describe(chars)}`);
}

function textOf(value: unknown, use: string): string {
  if (typeof value === "string") return value;
  throw new Error(`${use} needs a string, got ${describe(value)}`);
}

/** A value as an error message shows it: its text and its kind. */
function describe(value: unknown): string {
  if (value === undefined || value === null) return "none (or an undefined value)";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Map) return "a dict";
  return `${JSON.stringify(value)} (${typeof value})`;
}
