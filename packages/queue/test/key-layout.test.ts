import { ConfigError } from "@assay/core";
import { describe, expect, it } from "vitest";
import { keyLayout } from "../src/index.js";

describe("keyLayout", () => {
  it("keeps `<prefix>:<queue>` keys on a single Redis, whatever the prefix", () => {
    for (const prefix of ["assay", "a{b", "{}"]) {
      const layout = keyLayout(prefix, false);
      expect(layout.prefixOf("cpu")).toBe(prefix);
      expect(layout.metaKeys).toBe(`${prefix}:*:meta`);
      expect(layout.queueOfMetaKey(`${prefix}:gpu-x:meta`)).toBe("gpu-x");
    }
  });

  it("gives each queue a hash tag of its own on a cluster", () => {
    const layout = keyLayout("assay", true);
    expect(layout.prefixOf("cpu")).toBe("{assay:cpu}");
    expect(layout.prefixOf("gpu-m")).toBe("{assay:gpu-m}");
    expect(layout.metaKeys).toBe("{assay:*}:*:meta");
    expect(layout.queueOfMetaKey("{assay:cpu}:cpu:meta")).toBe("cpu");
    // A prefix that starts with this one is another's.
    expect(layout.queueOfMetaKey("{assay:x:cpu}:cpu:meta")).toBeUndefined();
  });

  it("keeps a prefix that holds a hash tag: every queue in its one slot", () => {
    const layout = keyLayout("{assay}", true);
    expect(layout.prefixOf("cpu")).toBe("{assay}");
    expect(layout.queueOfMetaKey("{assay}:cpu:meta")).toBe("cpu");
  });

  it("refuses braces that are not one non-empty hash tag on a cluster", () => {
    for (const prefix of ["assay{", "as}say", "{}", "{{a}}", "{a"]) {
      expect(() => keyLayout(prefix, true)).toThrow(ConfigError);
    }
    expect(() => keyLayout("assay{", true)).toThrow(
      '--queue-prefix "assay{" has a "{" without its "}": on a Redis Cluster the braces of a ' +
        "prefix are its hash tag. Leave them out (--queue-prefix assay gives each queue a slot " +
        'of its own) or put a non-empty name between one pair (--queue-prefix "{assay}" puts ' +
        "every queue in one slot).",
    );
  });
});
