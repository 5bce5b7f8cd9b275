import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { firstIssue, TargetSchema } from "../src/index.js";

// TargetSchema lists the scalar types one by one instead of nesting a scalar union (a
// nested union that fails writes out its issues' messages, on every list target). This is
// the nested form it replaced: both must accept the same targets and refuse the same ones
// at the same field. The refusal's wording is TargetSchema's own (borrowed below), so what
// is compared is which issue comes first, not how the message is phrased.
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const nested = z.union([scalar, z.array(scalar), z.record(z.string(), z.unknown())], {
  error: (issue) => TargetSchema.safeParse(issue.input).error?.issues[0]?.message,
});

describe("TargetSchema", () => {
  it("accepts, returns and refuses every JSON value as the nested scalar union did", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const flat = z.object({ target: TargetSchema }).safeParse({ target: value });
        const before = z.object({ target: nested }).safeParse({ target: value });
        expect(flat.success).toBe(before.success);
        if (flat.success && before.success) expect(flat.data).toEqual(before.data);
        if (!flat.success && !before.success) {
          expect(firstIssue(flat.error, { target: value })).toEqual(
            firstIssue(before.error, { target: value }),
          );
        }
      }),
      { numRuns: 2000 },
    );
  });
});
