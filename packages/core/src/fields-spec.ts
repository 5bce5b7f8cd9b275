import { z } from "zod";
import { describeValue } from "./validation/describe-value.js";

/**
 * Where one field is read from: a path into the dataset's record, `a.b.c` into nested
 * objects, `a[0]` into lists, `a["b.c"]` for a key that holds a dot or a bracket (the
 * way error messages write paths). Its syntax is checked when the spec loads.
 */
const FieldPathSchema = z.string({
  error: (issue) => `expected a column path (a string), got ${describeValue(issue.input)}`,
});

/** Where each field of a candidate is read from, inside each item of the `from` list. */
export const CandidateFieldsSchema = z.strictObject({
  from: FieldPathSchema,
  answer: FieldPathSchema.optional(),
  label: FieldPathSchema.optional(),
  generator: FieldPathSchema.optional(),
  steps: FieldPathSchema.optional(),
});
export type CandidateFields = z.infer<typeof CandidateFieldsSchema>;

/**
 * The spec's `fields`: for a dataset that does not use Assay's field names, the column
 * each field is read from. A field left out is read from the column of its own name;
 * columns no field reads are ignored. docs/cli.md ("Field mapping") documents it.
 */
export const FieldsSpecSchema = z.strictObject({
  id: FieldPathSchema.optional(),
  task_id: FieldPathSchema.optional(),
  question: FieldPathSchema.optional(),
  answer: FieldPathSchema.optional(),
  candidates: z
    .union([FieldPathSchema, CandidateFieldsSchema], {
      error: () => "candidates must be a column path, or { from: <column>, answer: <key>, ... }",
    })
    .optional(),
  target: FieldPathSchema.optional(),
  label: FieldPathSchema.optional(),
  /** One column holding an object, or a list of columns copied in under their own names. */
  metadata: z
    .union(
      [FieldPathSchema, z.array(FieldPathSchema).min(1, { error: "list at least one column" })],
      {
        error: () => "metadata must be a column path, or a non-empty list of column paths",
      },
    )
    .optional(),
  scorers: FieldPathSchema.optional(),
  generator: FieldPathSchema.optional(),
  steps: FieldPathSchema.optional(),
});
export type FieldsSpec = z.infer<typeof FieldsSpecSchema>;
