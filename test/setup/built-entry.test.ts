import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { staleWorkspace } from "@assay/test-support/built-entry";
import { afterEach, describe, expect, it } from "vitest";

// Tests of the built CLI must refuse a dist/ older than the sources it was built from:
// otherwise a single-file run after an edit tests the code from before the edit.
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function repoWith(files: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), "assay-built-entry-"));
  roots.push(root);
  mkdirSync(join(root, "apps"), { recursive: true });
  mkdirSync(join(root, "packages"), { recursive: true });
  for (const [path, seconds] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, "x");
    utimesSync(full, seconds, seconds);
  }
  return root;
}

describe("staleWorkspace", () => {
  it("finds nothing when every dist/ is newer than its sources", () => {
    const root = repoWith({
      "packages/store/src/a.ts": 100,
      "packages/store/src/deep/b.ts": 150,
      "packages/store/dist/a.js": 200,
      "apps/cli/src/main.ts": 100,
      "apps/cli/dist/main.js": 120,
    });
    expect(staleWorkspace(root)).toBeUndefined();
  });

  it("names the package and the source edited after its build, however deep", () => {
    const root = repoWith({
      "packages/store/src/a.ts": 100,
      "packages/store/src/deep/b.ts": 300,
      "packages/store/dist/a.js": 200,
      "apps/cli/src/main.ts": 100,
      "apps/cli/dist/main.js": 400,
    });
    expect(staleWorkspace(root)).toEqual({
      dist: join("packages", "store", "dist"),
      source: join("packages", "store", "src", "deep", "b.ts"),
    });
  });

  it("counts a workspace that was never built as stale", () => {
    const root = repoWith({ "apps/cli/src/main.ts": 100 });
    expect(staleWorkspace(root)?.dist).toBe(join("apps", "cli", "dist"));
  });
});
