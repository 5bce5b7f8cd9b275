import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { compileSafeRegex } from "../text/safe-regex.js";

export type CompiledSchema =
  | { ok: true; validate: ValidateFunction }
  | { ok: false; message: string };

// strict: false accepts schemas written for other validators (unknown keywords are
// ignored); `format` is not checked because ajv-formats is not bundled. addUsedSchema:
// false lets two different schemas share an `$id` without "already exists" errors.
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  validateFormats: false,
  addUsedSchema: false,
  code: { regExp: re2Engine() },
});

type RegExpEngine = NonNullable<NonNullable<Options["code"]>["regExp"]>;

/**
 * `pattern` and `patternProperties` run against model output: with JS regexes a schema
 * pattern like `^(a+)+$` could hang the worker, so they run on RE2 (linear time) too.
 */
function re2Engine(): RegExpEngine {
  const engine = (pattern: string, flags: string) => {
    const compiled = compileSafeRegex(pattern, flags);
    if (!compiled.ok) throw new Error(`pattern ${JSON.stringify(pattern)}: ${compiled.message}`);
    return compiled.regex;
  };
  return Object.assign(engine, { code: "re2" });
}

/** Bounds memory when every sample carries its own schema (`schema_from_target`). */
const MAX_CACHED = 512;
const cache = new Map<string, { schema: object; compiled: CompiledSchema }>();

/** Compiles a JSON Schema once per distinct JSON text; a bad schema gives a message. */
export function compileSchema(schema: object): CompiledSchema {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit !== undefined) return hit.compiled;
  const compiled = compile(schema);
  cache.set(key, { schema, compiled });
  if (cache.size > MAX_CACHED) evictOldest();
  return compiled;
}

/** The first few errors, each `instancePath: message`, for a score's detail. */
export function describeErrors(errors: ErrorObject[] | null | undefined, limit = 5): string[] {
  return (errors ?? [])
    .slice(0, limit)
    .map((error) => `${error.instancePath || "/"}: ${error.message ?? "invalid"}`);
}

function compile(schema: object): CompiledSchema {
  try {
    return { ok: true, validate: ajv.compile(schema) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function evictOldest(): void {
  const [key, entry] = cache.entries().next().value ?? [];
  if (key === undefined || entry === undefined) return;
  cache.delete(key);
  ajv.removeSchema(entry.schema);
}
