import { fileURLToPath } from "node:url";
// @ts-expect-error: a build script in plain JavaScript
import { sourceHashes } from "@assay/cli/source-stamp";
import { changedSource } from "@assay/test-support/built-entry";
import { describe, expect, it } from "vitest";

// Tests of the built CLI must refuse a build made from other sources than those on disk:
// otherwise a single-file run after an edit tests the code from before the edit.
describe("the built apps' source stamps", () => {
  const now = sourceHashes() as Record<string, string>;

  it("covers the CLI and every workspace it loads, and nothing of the tests", () => {
    const files = Object.keys(now);
    for (const folder of [
      "apps/cli/src/",
      "packages/store/src/",
      "packages/verifier/src/",
      "packages/model-tools/src/",
    ]) {
      expect(
        files.some((file) => file.startsWith(folder)),
        folder,
      ).toBe(true);
    }
    expect(files.filter((file) => /(^|\/)test\//.test(file))).toEqual([]);
  });

  it("covers a worker's own sources and the CLI's it runs on", () => {
    const worker = Object.keys(
      sourceHashes(fileURLToPath(new URL("../../apps/worker-gpu/", import.meta.url))),
    );
    for (const folder of ["apps/worker-gpu/src/", "apps/cli/src/", "packages/verifier/src/"]) {
      expect(
        worker.some((file) => file.startsWith(folder)),
        folder,
      ).toBe(true);
    }
    expect(worker.filter((file) => file.startsWith("apps/worker-cpu/"))).toEqual([]);
  });

  it("names a source edited, added or removed since the build", () => {
    const [first, second] = Object.keys(now);
    if (!first || !second) throw new Error("no sources found");
    expect(changedSource(now, now)).toBeUndefined();
    expect(changedSource(now, { ...now, [second]: "edited" })).toBe(second);
    expect(changedSource(now, { ...now, "packages/core/src/new.ts": "x" })).toBe(
      "packages/core/src/new.ts",
    );
    const { [first]: _removed, ...rest } = now;
    expect(changedSource(now, rest)).toBe(first);
  });
});
