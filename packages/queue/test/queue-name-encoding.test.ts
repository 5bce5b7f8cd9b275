import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gpuQueueName, identityOfQueueName } from "../src/index.js";

const RUNS = propertyRuns(2000);

describe("a model's queue name", () => {
  it("reads back into its identity, so no two models share a queue", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (identity) => {
        expect(identityOfQueueName(gpuQueueName(identity))).toBe(identity);
      }),
      { numRuns: RUNS },
    );
  });

  it("holds only what BullMQ and a Redis Cluster hash tag allow", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (identity) => {
        expect(gpuQueueName(identity)).toMatch(/^gpu-[A-Za-z0-9._-]*$/);
      }),
      { numRuns: RUNS },
    );
  });

  it("tells apart paths that replacing every other character with _ would not", () => {
    const pairs = [
      ["/models/a_b", "/models/a/b"],
      ["/models/a b", "/models/a:b"],
      ["/models/é", "/models/e"],
    ];
    for (const [one, other] of pairs) {
      expect(gpuQueueName(one as string)).not.toBe(gpuQueueName(other as string));
    }
    expect(gpuQueueName("/models/a_b")).toBe("gpu-_2fmodels_2fa_5fb");
  });
});
