import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { init, parse } from "es-module-lexer";

/** A package an image holds: its folder (real path), name and version. */
export interface InstalledPackage {
  dir: string;
  name: string;
  version: string;
}

/** What the entry points of an image import, followed through every module they reach. */
export interface ImportGraph {
  /** Folders of the packages reached (workspaces and dependencies), by real path. */
  packages: Set<string>;
  /** `file: specifier` of static imports whose package is not installed: the image would crash. */
  missing: string[];
  /** `file: specifier` of dynamic imports of packages not installed (the CLI says what to install). */
  optionalMissing: string[];
  /** `file: code` of dynamic imports this walk cannot read (no string literal). */
  unreadable: string[];
}

// es-module-lexer's ImportType: a dynamic import(), and `import.meta`, which is no import.
const DYNAMIC = 2;
const IMPORT_META = 3;

/**
 * Follows the imports of `entries` (files under `app`), ESM as this repository's build
 * writes it, the way Node resolves them: relative files, and packages found in the
 * node_modules folders above the importing file, each package through its `exports`.
 * Worker threads started with `startModuleThread(import.meta.url, "name")` count as
 * imports of `./name.js`. Inside a dependency that is not a workspace, the walk stops at
 * the package: what it needs is its own declared dependencies (`withDependencies`).
 */
export async function importGraph(app: string, entries: string[]): Promise<ImportGraph> {
  await init;
  const graph: ImportGraph = {
    packages: new Set(),
    missing: [],
    optionalMissing: [],
    unreadable: [],
  };
  const seen = new Set<string>();
  const queue = entries.map((entry) => realpathSync(join(app, entry)));
  // An entry point's own package is reached by running it.
  for (const entry of queue) graph.packages.add(packageOf(entry));
  const where = (file: string) => relative(app, file);
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    const [imports] = parse(source);
    const specifiers = imports
      .filter((i) => i.t !== IMPORT_META)
      .map((i) => ({ name: i.n, dynamic: i.t === DYNAMIC, code: source.slice(i.ss, i.se) }));
    for (const thread of source.matchAll(/startModuleThread\(import\.meta\.url,\s*"([^"]+)"/g)) {
      specifiers.push({ name: `./${thread[1]}.js`, dynamic: false, code: thread[0] });
    }
    for (const { name, dynamic, code } of specifiers) {
      if (name === undefined) {
        graph.unreadable.push(`${where(file)}: ${code}`);
        continue;
      }
      if (name.startsWith("./") || name.startsWith("../")) {
        queue.push(realpathSync(resolve(dirname(file), name)));
        continue;
      }
      if (isBuiltin(name)) continue;
      const pkg = packageName(name);
      const dir = findPackage(pkg, dirname(file));
      if (dir === undefined) {
        (dynamic ? graph.optionalMissing : graph.missing).push(`${where(file)}: ${name}`);
        continue;
      }
      graph.packages.add(dir);
      // Our own packages are followed file by file; a dependency ends the walk.
      if (isWorkspace(dir, app)) queue.push(exportedFile(dir, name.slice(pkg.length)));
    }
  }
  return graph;
}

/**
 * `roots` and every package they depend on, as npm installed them: each package's
 * dependencies, optional dependencies and peer dependencies, resolved from its folder as
 * Node would. Returns the folders, and `name (of dependent)` for each non-optional
 * dependency that is not installed.
 */
export function withDependencies(roots: Iterable<string>): {
  packages: Set<string>;
  absent: string[];
} {
  const packages = new Set<string>();
  const absent: string[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const dir = queue.pop() as string;
    if (packages.has(dir)) continue;
    packages.add(dir);
    const manifest = readManifest(dir);
    const optional = new Set([
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional === true)
        .map(([name]) => name),
    ]);
    for (const name of new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ])) {
      const found = findPackage(name, dir);
      if (found !== undefined) queue.push(found);
      else if (!optional.has(name)) absent.push(`${name} (of ${manifest.name})`);
    }
  }
  return { packages, absent };
}

/**
 * Every package installed in `app`: the node_modules folders of the root and of each
 * workspace folder, nested ones included, by real path (a workspace's link is its folder).
 */
export function installedPackages(app: string): InstalledPackage[] {
  const found = new Map<string, InstalledPackage>();
  const visit = (nodeModules: string) => {
    if (!existsSync(nodeModules)) return;
    for (const entry of readdirSync(nodeModules)) {
      if (entry.startsWith(".")) continue;
      const path = join(nodeModules, entry);
      if (entry.startsWith("@")) {
        for (const scoped of readdirSync(path)) addPackage(join(path, scoped));
      } else {
        addPackage(path);
      }
    }
  };
  const addPackage = (path: string) => {
    if (!existsSync(join(path, "package.json"))) return;
    const dir = realpathSync(path);
    if (found.has(dir)) return;
    const { name, version } = readManifest(dir);
    found.set(dir, { dir, name, version: version ?? "" });
    visit(join(dir, "node_modules"));
  };
  visit(join(app, "node_modules"));
  for (const workspace of workspaceFolders(app)) visit(join(workspace, "node_modules"));
  return [...found.values()];
}

/** The folders under apps/ and packages/ of `app`: the workspaces an image carries. */
export function workspaceFolders(app: string): string[] {
  return ["apps", "packages"].flatMap((parent) =>
    existsSync(join(app, parent))
      ? readdirSync(join(app, parent))
          .map((name) => join(app, parent, name))
          .filter((dir) => statSync(dir).isDirectory())
          .map((dir) => realpathSync(dir))
      : [],
  );
}

interface Manifest {
  name: string;
  version?: string;
  exports?: string | Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** The folder of the package a file belongs to: the nearest one above it with a package.json. */
function packageOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`${file} belongs to no package`);
  }
}

/** `@scope/name` or `name` of a bare specifier (`pkg/sub/path` → `pkg`). */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/** The real folder of package `name` as Node finds it from `from`, or undefined. */
function findPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

function isWorkspace(dir: string, app: string): boolean {
  return workspaceFolders(app).includes(dir);
}

/** The file a workspace package exports at `subpath` ("" or "/x"), as Node's `default` condition. */
function exportedFile(dir: string, subpath: string): string {
  const { exports, name } = readManifest(dir);
  const key = `.${subpath}`;
  const target =
    typeof exports === "string" && key === "."
      ? exports
      : (exports as Record<string, string | Record<string, string>>)?.[key];
  const file = typeof target === "string" ? target : target?.default;
  if (file === undefined) throw new Error(`${name} exports nothing at ${key}`);
  return realpathSync(join(dir, file));
}
