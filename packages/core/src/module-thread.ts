import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * The threads work on one batch at a time and keep little between batches, so a young
 * generation of a few MB collects almost everything; V8's default lets it grow to ~48 MB
 * per thread, which a parse thread filled with garbage: ~30 MB of a 100,000-sample run's
 * peak RSS. Objects larger than it go straight to the old generation, so nothing fails.
 * A thread whose collections cost more than its memory passes its own size.
 */
export const YOUNG_GENERATION_MB = 8;

/**
 * Starts a worker thread on the module `name` that sits next to `from` (the caller's
 * `import.meta.url`), with `data` as its `workerData`. Built code runs `name.js`. From the
 * TypeScript sources (tests, tsx) there is no built file, and Node 20 does not pass tsx's
 * loader on to threads: a small bootstrap registers tsx in the thread, then imports
 * `name.ts` under the `@assay/source` condition, so the thread runs the same workspace
 * sources as the code that started it. tsx, a dev dependency, is looked up on that path only.
 * Its young generation is `youngGenerationMb` (default YOUNG_GENERATION_MB).
 */
export function startModuleThread(
  from: string,
  name: string,
  data: Record<string, unknown> = {},
  youngGenerationMb = YOUNG_GENERATION_MB,
): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: youngGenerationMb };
  const fromSource = from.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, from);
  if (!fromSource) return new Worker(entry, { workerData: data, resourceLimits });
  const tsx = dirname(createRequire(from).resolve("tsx/package.json"));
  const tsxApi = pathToFileURL(join(tsx, "dist", "esm", "api", "index.mjs")).href;
  const bootstrap = `
    const { workerData } = require("node:worker_threads");
    import(workerData.tsxApi).then(({ register }) => { register(); return import(workerData.entry); });
  `;
  return new Worker(bootstrap, {
    eval: true,
    resourceLimits,
    workerData: { ...data, tsxApi, entry: entry.href },
    execArgv: [
      ...process.execArgv.filter((arg) => !arg.startsWith("--conditions")),
      "--conditions=@assay/source",
    ],
  });
}
