import { setFlagsFromString } from "node:v8";

export interface HeapGrowthOptions {
  /**
   * Let the young generation grow as V8 does by default (doubling, up to 3 × 16 MB) instead
   * of keeping it at its start-up size. For a process whose live heap is small and bounded,
   * such as a queue worker (its jobs in flight and one batch of rows), where the larger
   * young generation costs a few tens of MB once and saves most of the collections.
   * Default false.
   */
  growYoungGeneration?: boolean;
}

/**
 * Keeps V8 from letting garbage pile up to several times the live heap; the process's
 * entry point calls it first. A run keeps about 35 MB alive while gigabytes pass through
 * it, and nearly everything a job allocates outlives two young collections (it waits for
 * its batch to be written), so it dies in the old generation, which V8 by default lets grow
 * to about 4× what survived the last full collection: ~150 MB of heap for 35 MB alive.
 * - The old generation grows to 1.5× what survived instead (every process).
 * - The young generation stays at its size when this is called, instead of doubling up to
 *   3 × 16 MB while much survives; called at start-up, that is a few MB. A small young
 *   generation is collected far more often, which is what a CPU worker pays for: on
 *   bench:night (100,000 samples, two workers) the worker spent ~135 µs CPU per job with it
 *   and ~90 µs with the young generation left to grow, at ~110 → ~135 MB peak RSS. So the
 *   CPU worker (`apps/worker-cpu`) passes `growYoungGeneration`. The CLI and the producer,
 *   whose live heap grows with the dataset, keep it small (with both limits, bench:local's
 *   peak RSS went ~290 → ~195 MB on Postgres and ~450 → ~250 MB on a first embedded run,
 *   for ~10% more CPU time), and so does the GPU worker, whose jobs are too slow for
 *   collections to count. Letting the CLI's grow (bench:local, 200,000 samples) left its
 *   CPU on Postgres where it was (~39 µs per sample) and cut it on a first embedded run
 *   (79 → 69 µs), but took that run's peak RSS from 277 to 320 MB, past its 300 MB target.
 * Both flags are read while the process runs, so setting them now works. A process started
 * with its own value (`node --heap-growing-percent=100 …`; Node refuses both in
 * NODE_OPTIONS) keeps it; on the command line V8 does not hold the young generation for
 * `--semi-space-growth-factor=1`, but does for `--max-semi-space-size=1`.
 */
export function limitHeapGrowth(options: HeapGrowthOptions = {}): void {
  setUnlessChosen("heap-growing-percent", 50);
  if (options.growYoungGeneration !== true) setUnlessChosen("semi-space-growth-factor", 1);
}

/**
 * Lets the old generation grow to 3× what survived its last full collection instead of
 * 1.5×, for a process whose store is a Postgres server and so has memory to spare: the
 * CLI calls it once it knows. Most of what a run promotes is dead by the next full
 * collection, so fewer of them cost less CPU. bench:local's 1,000,000 samples on Postgres:
 * at 2× instead of 1.5×, 9% less CPU (at 200,000 samples, 2 runs each) for 18 MB more peak
 * RSS; at 3× instead of 2×, 0.87×, 0.89× and 0.99× the CPU in 3 alternating pairs (medians
 * 13.0 against 14.4 µs a sample) for ~40 MB more (232 → 270–281 MB). A process with the
 * embedded store keeps 1.5×: it holds PGlite too, within 300 MB.
 */
export function allowServerHeapGrowth(): void {
  setUnlessChosen("heap-growing-percent", 200);
}

let wasmCompilerLimited = false;

/**
 * Keeps V8's WebAssembly compiler from holding ~30 MB more than it needs in a process that
 * runs the embedded store (PGlite: Postgres compiled to a 9 MB WASM module). V8 first
 * compiles each function with its quick compiler, then recompiles the hot ones with its
 * optimising one on as many threads as it likes; each thread's compiler memory lands in its
 * own malloc arena, which glibc rarely hands back. One compilation thread and a ten times
 * larger tier-up budget (only functions that stay hot are optimised) took a first embedded
 * run of 20,000 samples from 262–292 MB peak RSS (median 274) to 233–251 MB (median 246),
 * and a 200,000-sample run from 12.2–12.6 s to 12.4–12.8 s. Turning the optimising
 * compiler off (`--liftoff-only`) reaches ~200 MB but costs 35% more time at 200,000.
 * Called before the module is compiled; a flag given on the command line is kept.
 */
export function limitWasmCompilerMemory(): void {
  // Once per process: a test or a server opens many stores, and V8 reads the flags only
  // for modules compiled after they are set.
  if (wasmCompilerLimited) return;
  wasmCompilerLimited = true;
  setUnlessChosen("wasm-num-compilation-tasks", 1);
  setUnlessChosen("wasm-tiering-budget", 18_000_000);
}

function setUnlessChosen(flag: string, value: number): void {
  if (!process.execArgv.some((arg) => arg.includes(flag))) {
    setFlagsFromString(`--${flag}=${value}`);
  }
}
