import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-expect-error: a build script in plain JavaScript, typed by its use here
import { sourceHashes } from "@assay/cli/source-stamp";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The absolute path of the built CLI (`apps/cli/dist/main.js`), once its build is known to
 * come from the sources on disk. Tests that run what users run spawn the built files; a
 * single `vitest run` after an edit would otherwise test the code from before the edit.
 */
export function builtCli(): string {
  return builtApp("apps/cli");
}

const checked = new Map<string, string>();

/**
 * The absolute path of `app`'s built `dist/main.js` (`apps/cli`, `apps/worker-cpu`, ...),
 * checked against the sources on disk once per test process (quick files share one, so an
 * edit during a run is caught by the next run). Each app's build records a hash of every
 * source it compiled, its workspaces' included (`apps/cli/scripts/source-stamp.mjs`);
 * contents are compared, not times, because turbo replays a cached build with its old times.
 */
export function builtApp(app: string): string {
  let main = checked.get(app);
  if (main === undefined) {
    main = checkedBuild(app);
    checked.set(app, main);
  }
  return main;
}

function checkedBuild(app: string): string {
  const folder = join(REPO, app);
  const main = join(folder, "dist/main.js");
  const stamp = join(folder, "dist/source-stamp.json");
  if (!existsSync(main) || !existsSync(stamp)) {
    throw new Error(`${app} is not built: run \`npm run build\` first.`);
  }
  const changed = changedSource(
    JSON.parse(readFileSync(stamp, "utf8")),
    sourceHashes(folder) as Record<string, string>,
  );
  if (changed) {
    throw new Error(
      `${changed} changed since ${app} was built: run \`npm run build\` first (this test runs the built ${app}).`,
    );
  }
  return main;
}

/**
 * The node arguments that run the built CLI with `args` in a test. `--liftoff-only` keeps
 * the embedded store's WebAssembly Postgres on V8's baseline compiler: the optimising tier
 * spends about a second of CPU recompiling it in every short-lived test process, a third
 * of a small run's CPU, and changes no result.
 * Users' processes keep the default, which pays off over a night's run; tests that measure
 * memory or time spawn `builtCli()` bare.
 */
export function cliArgs(args: string[]): string[] {
  return ["--liftoff-only", builtCli(), ...args];
}

/** The first source whose content differs between the build's stamp and the disk. */
export function changedSource(
  built: Record<string, string>,
  now: Record<string, string>,
): string | undefined {
  for (const [file, hash] of Object.entries(now)) {
    if (built[file] !== hash) return file;
  }
  return Object.keys(built).find((file) => !(file in now));
}
