import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DatasetLineSchema, firstIssue, MAX_ID_LENGTH } from "../src/index.js";
import { idProblem } from "../src/validation/ids.js";

// `id`, `task_id` and `metadata` are checked without a zod transform (a pipe) or a record
// of unknown values, which cost a third of validating a line between them. These are the
// definitions they replaced: a line must be accepted, returned and refused the same way,
// at the same field with the same message.
const transformedId = (name: string) =>
  z.unknown().transform((value, ctx): string => {
    const problem = idProblem(name, value);
    if (problem === undefined) return typeof value === "number" ? String(value) : (value as string);
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  });

const before = z.strictObject({
  id: transformedId("id"),
  task_id: transformedId("task_id").optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const { shape } = DatasetLineSchema;
const now = z.strictObject({ id: shape.id, task_id: shape.task_id, metadata: shape.metadata });

const idLike = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, 2 ** 53, -(2 ** 53), 1.5, "", "a\u200bb", "x\ny", "\u202eid"),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ minLength: MAX_ID_LENGTH - 2, maxLength: MAX_ID_LENGTH + 2 }),
);
const absent = fc.constant(undefined);
// Metadata with an own `__proto__` key never reaches the schema: the line's JSON check
// refuses that key first (json-walk.ts). Left in, the record above would drop it (it copies
// keys by assignment) where the schema keeps the value as read.
const metadataValue = fc
  .oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.string(), fc.jsonValue()))
  .filter(
    (value) => typeof value !== "object" || value === null || !Object.hasOwn(value, "__proto__"),
  );

describe("dataset line id, task_id and metadata", () => {
  it("accept, return and refuse every value as the transform and the record did", () => {
    fc.assert(
      fc.property(
        fc.oneof(idLike, absent),
        fc.oneof(idLike, absent),
        fc.oneof(metadataValue, absent),
        (id, taskId, metadata) => {
          const line: Record<string, unknown> = { id };
          if (taskId !== undefined) line.task_id = taskId;
          if (metadata !== undefined) line.metadata = metadata;
          const a = now.safeParse(line);
          const b = before.safeParse(line);
          expect(a.success).toBe(b.success);
          if (a.success && b.success) expect(a.data).toEqual(b.data);
          if (!a.success && !b.success) {
            expect(firstIssue(a.error, line)).toEqual(firstIssue(b.error, line));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("stores a numeric id as its decimal string, and refuses -0 and unsafe integers", () => {
    const line = (id: unknown) => ({ id, question: "q", answer: "a" });
    expect(DatasetLineSchema.parse(line(42)).id).toBe("42");
    for (const id of [-0, 2 ** 53, 1.5]) {
      expect(DatasetLineSchema.safeParse(line(id)).success).toBe(false);
    }
  });
});
