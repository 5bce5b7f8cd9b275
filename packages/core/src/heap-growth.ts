import { setFlagsFromString } from "node:v8";

/** Old-generation growth over what survived the last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Keeps V8 from letting garbage pile up to several times the live heap. A run keeps about
 * 35 MB alive while gigabytes pass through it; nearly everything a job allocates outlives
 * two young-generation collections (it waits for its batch to be written), so it dies in
 * the old generation, which V8 by default lets grow to about 4× what survived the last
 * full collection before it collects again: ~150 MB of heap for 35 MB alive. Capping the
 * growth at 1.5× cost a 100,000-sample `assay run` no measurable time and took its peak
 * RSS from ~330 MB to ~230 MB (Postgres store) and ~450 MB to ~360 MB (embedded store).
 * The flag is read at every full collection, so setting it once the process runs works.
 * A process started with its own `--heap-growing-percent` keeps it.
 */
export function limitHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) =>
    arg.includes("heap-growing-percent"),
  );
  if (!chosen) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
