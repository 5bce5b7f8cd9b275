import { scored, type Target, unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { type CompiledSchema, compileSchema } from "../json/schema-validator.js";
import { extractJson } from "../text/extract-json.js";

const JsonArgs = z
  .strictObject({
    /** JSON Schema the parsed answer must satisfy (ajv 8, draft-07). Default: none, parsing is enough. */
    schema: z.record(z.string(), z.unknown()).optional(),
    /** Use the sample's target object as the schema. Default false. */
    schema_from_target: z.boolean().default(false),
    /**
     * Where the JSON is: "whole" answer, "fenced" (a ```json block if present, else the
     * whole answer), or "first_object" (the first balanced `{...}` that parses). Default "fenced".
     */
    extract: z.enum(["whole", "fenced", "first_object"]).default("fenced"),
  })
  .superRefine((args, ctx) => {
    if (args.schema !== undefined && args.schema_from_target) {
      const message = "give either `schema` or `schema_from_target`, not both";
      ctx.addIssue({ code: "custom", path: ["schema_from_target"], message });
    }
    const compiled = args.schema === undefined ? undefined : compileSchema(args.schema);
    if (compiled?.ok === false) {
      ctx.addIssue({
        code: "custom",
        path: ["schema"],
        message: `invalid JSON Schema: ${compiled.message}`,
      });
    }
  });

export const json = defineScorer({
  name: "json",
  pool: "cpu",
  description: "The answer is JSON and, when a schema is given, satisfies it",
  args: JsonArgs,
  create(args) {
    return (sample) => {
      const schema = args.schema_from_target
        ? schemaFromTarget(sample.target)
        : fixedSchema(args.schema);
      if (!schema.ok) return unscored("invalid_target", schema.message);
      const parsed = extractJson(sample.answer, args.extract);
      if (!parsed.ok) return unscored("unparseable", parsed.message);
      if (schema.validate === undefined) return scored(1);
      const verdict = schema.validate(parsed.value);
      if (verdict.status === "budget") return unscored("timeout", verdict.message);
      return verdict.status === "valid" ? scored(1) : scored(0, { errors: verdict.errors });
    };
  },
});

type OptionalSchema = CompiledSchema | { ok: true; validate: undefined };

function fixedSchema(schema: object | undefined): OptionalSchema {
  return schema === undefined ? { ok: true, validate: undefined } : compileSchema(schema);
}

function schemaFromTarget(target: Target | undefined): CompiledSchema {
  if (typeof target !== "object" || Array.isArray(target)) {
    return { ok: false, message: "schema_from_target needs the target to be a JSON Schema object" };
  }
  const compiled = compileSchema(target);
  return compiled.ok
    ? compiled
    : { ok: false, message: `the target is not a valid JSON Schema: ${compiled.message}` };
}
