import type { Store } from "@assay/store";

export interface WaitForRunOptions {
  /** How often to count stored results, in ms. Default 1000. */
  pollMs?: number;
  onTick?: (done: number) => void;
  /** Stops waiting (the run goes on in the workers). */
  signal?: AbortSignal;
}

/**
 * Waits until every planned result row of the run is stored. Returns false when `signal`
 * ended the wait first.
 */
export async function waitForRun(
  store: Store,
  runId: string,
  planned: number,
  options: WaitForRunOptions = {},
): Promise<boolean> {
  const pollMs = options.pollMs ?? 1000;
  for (;;) {
    const done = await store.countResults(runId);
    options.onTick?.(done);
    if (done >= planned) return true;
    if (options.signal?.aborted === true) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
