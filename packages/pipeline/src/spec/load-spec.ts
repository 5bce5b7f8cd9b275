import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import {
  firstIssue,
  formatPath,
  parseJsonConfig,
  parseYamlConfig,
  type RunSpec,
  RunSpecSchema,
  SpecError,
  scorerKey,
} from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import { compileFields } from "../ingest/field-map.js";
import { assertRoutableField } from "../routing/sample-field.js";

/** Reads a run spec (JSON or YAML) and checks every rule and scorer before any scoring. */
export async function loadSpec(file: string, registry: ScorerRegistry): Promise<RunSpec> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new SpecError(file, "file", "cannot read the spec file; check the path");
  }
  return parseSpec(text, file, registry);
}

export function parseSpec(text: string, file: string, registry: ScorerRegistry): RunSpec {
  const raw = parseDocument(text, file);
  const result = RunSpecSchema.safeParse(raw);
  if (!result.success) {
    const { field, message } = firstIssue(result.error, undefined, "");
    throw new SpecError(file, describeField(raw, field), message);
  }
  return validateSpec(result.data, file, registry);
}

/** Checks a parsed spec: routable fields, known scorers and their args, column paths. */
export function validateSpec(spec: RunSpec, file: string, registry: ScorerRegistry): RunSpec {
  for (const rule of spec.rules) {
    for (const path of Object.keys(rule.when)) {
      assertRoutableField(path, file, `rule "${rule.name}" when`);
    }
  }
  const names = new Set<string>();
  for (const rule of spec.rules) {
    if (names.has(rule.name)) {
      throw new SpecError(file, `rule "${rule.name}"`, "rule names must be unique");
    }
    names.add(rule.name);
  }
  registry.validateSpec(spec, file);
  checkSelectionKeys(spec, file);
  const fields = compileFields(spec.fields);
  if (!fields.ok) throw new SpecError(file, fields.field, fields.message);
  return spec;
}

/** Selection names scorer keys; a typo there would silently select nothing. */
function checkSelectionKeys(spec: RunSpec, file: string): void {
  if (spec.selection === undefined) return;
  const keys = new Set(
    [...spec.rules.flatMap((rule) => rule.scorers), ...(spec.default?.scorers ?? [])].map(
      scorerKey,
    ),
  );
  const { verifier, check } = spec.selection;
  for (const [field, key] of [
    ["verifier", verifier],
    ["check", check],
  ] as const) {
    if (key !== undefined && !keys.has(key)) {
      const known = [...keys].sort().join(", ") || "none";
      throw new SpecError(
        file,
        `selection.${field}`,
        `no rule uses a scorer with key "${key}" (known: ${known})`,
      );
    }
  }
}

/**
 * The spec as data, checked as a dataset line is (keys written twice, `__proto__`, NUL,
 * depth, numbers), so what it says is what it means.
 */
function parseDocument(text: string, file: string): unknown {
  const isJson = extname(file).toLowerCase() === ".json";
  const parsed = isJson ? parseJsonConfig(text) : parseYamlConfig(text);
  if (parsed.ok) return parsed.value;
  const field = formatPath(parsed.path);
  throw new SpecError(
    file,
    field === "" ? "file" : describeField(parsed.value, field),
    parsed.message,
  );
}

// "rules[2].scorers[0].name" reads better as `rule "mcq" scorers[0].name`.
function describeField(raw: unknown, field: string): string {
  const match = /^rules\[(\d+)\](.*)$/.exec(field);
  if (match === null) return field === "" ? "spec" : field;
  const rules = (raw as { rules?: Array<{ name?: unknown }> } | null)?.rules;
  const name = rules?.[Number(match[1])]?.name;
  const rest = (match[2] ?? "").replace(/^\./, "");
  const label = typeof name === "string" ? `rule "${name}"` : `rules[${match[1]}]`;
  return rest === "" ? label : `${label} ${rest}`;
}
