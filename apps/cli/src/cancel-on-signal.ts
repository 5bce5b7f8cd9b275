import type { Store } from "@assay/store";
import { writeErr } from "./output.js";

/**
 * Runs `work`; a Ctrl-C or SIGTERM meanwhile has the server cancel the store's running
 * queries before the process ends. A client that just exits leaves its query running on
 * the server, holding a core and its locks, for as long as the query takes. The process
 * then ends by the same signal, as it would have without this.
 */
export async function cancelQueriesOnSignal<T>(store: Store, work: () => Promise<T>): Promise<T> {
  let stopping: Promise<never> | undefined;
  const handle = (name: NodeJS.Signals): void => {
    stopping ??= stop(name);
  };
  const dispose = (): void => {
    process.off("SIGINT", handle);
    process.off("SIGTERM", handle);
  };
  const stop = async (name: NodeJS.Signals): Promise<never> => {
    writeErr("Interrupted: cancelling the queries on the server.\n");
    await store.cancelQueries().catch(() => {});
    dispose();
    process.kill(process.pid, name);
    // The signal ends the process; this keeps it alive until it is delivered.
    return new Promise<never>(() => setTimeout(() => {}, 10_000));
  };
  process.on("SIGINT", handle);
  process.on("SIGTERM", handle);
  try {
    const value = await work();
    if (stopping !== undefined) await stopping;
    return value;
  } catch (error) {
    // The cancelled query fails: the signal, not that failure, is how the command ends.
    if (stopping !== undefined) await stopping;
    throw error;
  } finally {
    dispose();
  }
}
