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
 * A target read from a column of text through a regex (GSM8K's `#### 42`): its first
 * capture group, or the whole match when it has none. A row it does not match is an
 * input error. RE2 syntax, checked when the spec loads.
 */
export const CapturedFieldSchema = z.strictObject({
  from: FieldPathSchema,
  pattern: z.string({ error: "expected a regex (a string)" }).min(1, { error: "empty regex" }),
});
export type CapturedField = z.infer<typeof CapturedFieldSchema>;

/**
 * A question made of several text columns (a passage and its question), in the order
 * listed, with `separator` (default a blank line, "\n\n") between them.
 */
export const JoinedFieldSchema = z.strictObject({
  join: z.array(FieldPathSchema).min(2, { error: "list at least two columns to join" }),
  separator: z.string({ error: "expected the text between the columns (a string)" }).optional(),
});
export type JoinedField = z.infer<typeof JoinedFieldSchema>;

/**
 * An id that is the record's position in its file, from 1, for data without ids: a JSONL
 * line's number, a CSV or TSV row's place after the header, a Parquet row's place.
 */
export const RowIdSchema = z.strictObject({
  row: z.literal(true),
});

/** Where the default separator of `join` is said once. */
export const DEFAULT_JOIN_SEPARATOR = "\n\n";

/**
 * The spec's `fields`: for a dataset that does not use Assay's field names, the column
 * each field is read from. A field left out is read from the column of its own name;
 * columns no field reads are ignored. docs/cli.md ("Field mapping") documents it.
 */
export const FieldsSpecSchema = z.strictObject({
  id: z
    .union([FieldPathSchema, RowIdSchema], {
      error: (issue) =>
        `expected a column path (a string), or { row: true } for the record's position; got ${describeValue(issue.input)}`,
    })
    .optional(),
  task_id: FieldPathSchema.optional(),
  question: z
    .union([FieldPathSchema, JoinedFieldSchema], {
      error: () =>
        'question must be a column path, or { join: [<column>, <column>, ...], separator: "\\n\\n" }',
    })
    .optional(),
  answer: FieldPathSchema.optional(),
  candidates: z
    .union([FieldPathSchema, CandidateFieldsSchema], {
      error: () => "candidates must be a column path, or { from: <column>, answer: <key>, ... }",
    })
    .optional(),
  target: z
    .union([FieldPathSchema, CapturedFieldSchema], {
      error: () =>
        'target must be a column path, or { from: <column>, pattern: "<regex with a capture group>" }',
    })
    .optional(),
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
