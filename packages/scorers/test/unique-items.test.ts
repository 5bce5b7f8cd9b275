import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepEqual } from "../src/json/deep-equal.js";
import { firstDuplicate } from "../src/json/unique-items.js";

const RUNS = propertyRuns(300);

/** The same JSON value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).reverse();
  return Object.fromEntries(entries.map(([key, inner]) => [key, reversedKeys(inner)]));
}

/** Arrays that often repeat an item, sometimes with its object keys reordered. */
const arrays = fc
  .array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 4 })
  .chain((pool) =>
    fc.array(
      fc.tuple(fc.nat(pool.length - 1), fc.boolean()).map(([at, flip]) => {
        const item = pool[at];
        return flip ? reversedKeys(item) : item;
      }),
      { maxLength: 8 },
    ),
  );

/** The quadratic definition: the first later item equal to an earlier one. */
function pairwiseDuplicate(items: unknown[]): { i: number; j: number } | undefined {
  for (let i = 0; i < items.length; i++) {
    for (let j = 0; j < i; j++) if (deepEqual(items[i], items[j])) return { i, j };
  }
  return undefined;
}

describe("firstDuplicate", () => {
  it("finds the same repeat as comparing every pair, for any JSON array", () => {
    fc.assert(
      fc.property(arrays, (items) => {
        expect(firstDuplicate(items)).toEqual(pairwiseDuplicate(items));
      }),
      { numRuns: RUNS },
    );
  });
});
