import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The absolute path of a built entry point (e.g. `apps/cli/dist/main.js`), once every
 * workspace's `dist/` is at least as new as its sources. Tests that run what users run spawn
 * the built files; a single `vitest run` after an edit would otherwise test yesterday's code
 * and pass or fail for the wrong reason.
 */
export function builtEntry(entry: string): string {
  const path = join(REPO, entry);
  if (!existsSync(path)) {
    throw new Error(`${entry} is not built: run \`npm run build\` first.`);
  }
  const stale = staleWorkspace();
  if (stale) {
    throw new Error(
      `${stale.dist} is older than ${stale.source}: run \`npm run build\` first (this test runs the built files).`,
    );
  }
  return path;
}

/** The first workspace whose newest source file is newer than its newest built file. */
export function staleWorkspace(root = REPO): { dist: string; source: string } | undefined {
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(root, group, name, "src");
      const dist = join(root, group, name, "dist");
      if (!existsSync(src)) continue;
      const source = newest(src);
      const built = existsSync(dist) ? newest(dist) : undefined;
      if (source && (!built || source.mtimeMs > built.mtimeMs)) {
        return { dist: relative(root, dist), source: relative(root, source.path) };
      }
    }
  }
  return undefined;
}

function newest(folder: string): { path: string; mtimeMs: number } | undefined {
  let found: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (!found || mtimeMs > found.mtimeMs) found = { path, mtimeMs };
  }
  return found;
}
