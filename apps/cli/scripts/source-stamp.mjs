/**
 * Writes dist/source-stamp.json: a hash of every source file a built app was compiled
 * from (its own and those of the workspaces it depends on). Run from an app's folder (the
 * CLI, a worker), or with that folder as its argument. Tests that run a built app compare
 * it with the sources on disk, so a test run after an edit without a build fails with the
 * file that changed instead of testing the code from before the edit. turbo replays this
 * file with the rest of dist/, so it always describes the dist/ beside it.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../", import.meta.url));

/** Source file (relative to the repository) → sha256, for an app and its workspaces. */
export function sourceHashes(app = CLI) {
  const repo = join(app, "../..");
  const byName = workspacesByName(repo);
  const seen = new Set();
  const pending = [app];
  const hashes = {};
  while (pending.length > 0) {
    const folder = pending.pop();
    if (seen.has(folder)) continue;
    seen.add(folder);
    const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
    for (const name of Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
    })) {
      const dependency = byName.get(name);
      if (dependency) pending.push(dependency);
    }
    for (const file of filesUnder(join(folder, "src"))) {
      hashes[relative(repo, file)] = createHash("sha256").update(readFileSync(file)).digest("hex");
    }
  }
  return hashes;
}

function workspacesByName(repo) {
  const byName = new Map();
  for (const group of ["apps", "packages"]) {
    for (const name of readdirSync(join(repo, group))) {
      const folder = join(repo, group, name);
      try {
        byName.set(JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).name, folder);
      } catch {
        // not a workspace
      }
    }
  }
  return byName;
}

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const app = resolve(process.argv[2] ?? process.cwd());
  const out = join(app, "dist", "source-stamp.json");
  writeFileSync(out, `${JSON.stringify(sourceHashes(app), null, 1)}\n`);
}
