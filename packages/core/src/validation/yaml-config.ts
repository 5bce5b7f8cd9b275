import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";
import { configValueProblem, DUPLICATE_KEY_MESSAGE, type ParsedConfig } from "./config-document.js";

/**
 * Parses YAML configuration text with the checks JSON configuration gets
 * (`parseJsonConfig`): a key written twice is refused with its path, and the value must
 * pass the dataset-line rules. yaml's own `uniqueKeys` check is off because it compares
 * key nodes, so `1:` and `"1":` pass it, though both become the same JavaScript key.
 */
export function parseYamlConfig(text: string): ParsedConfig {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) return syntaxError(syntax.message);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // Too many aliases (an expansion bomb), or an alias to an anchor not yet defined.
    return syntaxError(error instanceof Error ? error.message : String(error));
  }
  const repeated = repeatedKey(doc, doc.contents, []);
  if (repeated !== undefined) {
    return { ok: false, value, path: repeated, message: DUPLICATE_KEY_MESSAGE };
  }
  const problem = configValueProblem(value);
  if (problem !== undefined) return { ok: false, value, ...problem };
  return { ok: true, value };
}

// One line: yaml appends an excerpt of the file after the position.
function syntaxError(message: string): ParsedConfig {
  const first = message.split("\n")[0]?.replace(/:$/, "") ?? "";
  return { ok: false, value: undefined, path: [], message: `not valid YAML: ${first}` };
}

/** The path of the first key that repeats, compared as the JavaScript keys they become. */
function repeatedKey(doc: Document, node: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const found = repeatedKey(doc, item, [...path, index]);
      if (found !== undefined) return found;
    }
  }
  if (!isMap(node)) return undefined;
  const seen = new Set<string>();
  for (const pair of node.items) {
    const key = jsKey(doc, pair.key);
    if (seen.has(key)) return [...path, key];
    seen.add(key);
    const found = repeatedKey(doc, pair.value, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

// As yaml names a key in the object it builds: null is "", a scalar its String().
function jsKey(doc: Document, key: unknown): string {
  const node = isAlias(key) ? key.resolve(doc) : key;
  if (isScalar(node)) return node.value === null ? "" : String(node.value);
  if (node === null || node === undefined) return "";
  return String((node as Node).toString());
}
