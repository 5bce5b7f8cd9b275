/**
 * Writes dist/source-stamp.json: a hash of every source file the built CLI was compiled
 * from (its own and those of the workspaces it depends on). Tests that run the built CLI
 * compare it with the sources on disk, so a test run after an edit without a build fails
 * with the file that changed instead of testing the code from before the edit. turbo
 * replays this file with the rest of dist/, so it always describes the dist/ beside it.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../", import.meta.url));

/** Source file (relative to the repository) → sha256, for the CLI and its workspaces. */
export function sourceHashes(cli = CLI) {
  const repo = join(cli, "../..");
  const byName = workspacesByName(repo);
  const seen = new Set();
  const pending = [cli];
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
  const out = join(CLI, "dist", "source-stamp.json");
  writeFileSync(out, `${JSON.stringify(sourceHashes(), null, 1)}\n`);
}
