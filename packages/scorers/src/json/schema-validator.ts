import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { compileSafeRegex } from "../text/safe-regex.js";
import { linearUniqueItems } from "./unique-items.js";

export type CompiledSchema = { ok: true; validate: SchemaCheck } | { ok: false; message: string };

/** Checks one parsed answer; `budget` when the check ran out of time before deciding. */
export type SchemaCheck = (answer: unknown) => SchemaVerdict;
export type SchemaVerdict =
  | { status: "valid" }
  | { status: "invalid"; errors: string[] }
  | { status: "budget"; message: string };

/**
 * Most validator functions one answer may enter. Each `$ref` that ajv does not inline is a
 * function call, so this bounds recursive schemas whose branches re-validate the same
 * subtree (an `anyOf` of two recursive branches doubles per level of nesting). A million
 * calls takes well under a second; a real answer needs about one per nested value.
 */
export const MAX_VALIDATOR_CALLS = 1_000_000;

// strict: false accepts schemas written for other validators (unknown keywords are
// ignored); `format` is not checked because ajv-formats is not bundled. addUsedSchema:
// false lets two different schemas share an `$id` without "already exists" errors.
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  validateFormats: false,
  addUsedSchema: false,
  code: { regExp: re2Engine(), process: countCalls },
});
ajv.removeKeyword("uniqueItems");
ajv.addKeyword(linearUniqueItems);

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

/**
 * The calls left to the answer being checked. Generated code reaches it through `self`,
 * the ajv instance every validator function closes over (ajv's `new Function("self", ...)`).
 */
const BUDGET_FIELD = "assayCallsLeft";
const OUT_OF_BUDGET = "assay: validator call budget spent";
const budget = ajv as unknown as Record<typeof BUDGET_FIELD, number>;
// Unbounded outside an answer's check: ajv validates each schema against the meta-schema
// with generated code too, and that must not be charged to an answer.
budget[BUDGET_FIELD] = Number.POSITIVE_INFINITY;

/** Makes every generated validator function spend one call of the budget on entry. */
function countCalls(source: string): string {
  const entry = "={}){";
  const at = source.indexOf(entry);
  if (at < 0) throw new Error("ajv's generated validator has an unexpected shape");
  const charge = `if(--self.${BUDGET_FIELD}<0)throw new Error(${JSON.stringify(OUT_OF_BUDGET)});`;
  return source.slice(0, at + entry.length) + charge + source.slice(at + entry.length);
}

/** Bounds memory when every sample carries its own schema (`schema_from_target`). */
const MAX_CACHED = 512;
const cache = new Map<string, { schema: object; compiled: CompiledSchema }>();

/** Compiles a JSON Schema once per distinct JSON text; a bad schema gives a message. */
export function compileSchema(schema: object): CompiledSchema {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit !== undefined) return hit.compiled;
  const withId = withRootId(schema);
  const compiled = compile(withId);
  cache.set(key, { schema: withId, compiled });
  if (cache.size > MAX_CACHED) evictOldest();
  return compiled;
}

/**
 * Ajv resolves `{"$ref": "#"}` (the root, for recursive schemas) only through a registry of
 * added schemas, which addUsedSchema: false leaves empty, unless the root has an `$id`. A
 * schema without one gets a placeholder that no other reference can name.
 */
function withRootId(schema: object): object {
  return "$id" in schema ? schema : { $id: "assay:answer-schema", ...schema };
}

/** The first few errors, each `instancePath: message`, for a score's detail. */
export function describeErrors(errors: ErrorObject[] | null | undefined, limit = 5): string[] {
  return (errors ?? [])
    .slice(0, limit)
    .map((error) => `${error.instancePath || "/"}: ${error.message ?? "invalid"}`);
}

function compile(schema: object): CompiledSchema {
  try {
    return { ok: true, validate: bounded(ajv.compile(schema)) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function bounded(validate: ValidateFunction): SchemaCheck {
  return (answer) => {
    budget[BUDGET_FIELD] = MAX_VALIDATOR_CALLS;
    try {
      if (validate(answer)) return { status: "valid" };
      return { status: "invalid", errors: describeErrors(validate.errors) };
    } catch (error) {
      return { status: "budget", message: budgetMessage(error) };
    } finally {
      budget[BUDGET_FIELD] = Number.POSITIVE_INFINITY;
    }
  };
}

function budgetMessage(error: unknown): string {
  if (error instanceof Error && error.message === OUT_OF_BUDGET) {
    return `checking the answer against the schema took over ${MAX_VALIDATOR_CALLS.toLocaleString("en")} validator calls (a recursive schema whose branches re-check the same part of the answer); simplify the schema`;
  }
  if (error instanceof RangeError) {
    return 'checking the answer against the schema recursed too deeply: the schema refers to itself without descending into the answer (e.g. a bare {"$ref": "#"}), or the answer nests deeper than the stack allows';
  }
  throw error;
}

function evictOldest(): void {
  const [key, entry] = cache.entries().next().value ?? [];
  if (key === undefined || entry === undefined) return;
  cache.delete(key);
  ajv.removeSchema(entry.schema);
}
