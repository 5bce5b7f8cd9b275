import type { ServedQueue } from "@assay/queue";
import type { ModelQueue } from "@assay/store";
import type { DistributedFlags } from "./distributed-options.js";
import { workerCommand } from "./queue-warnings.js";

export interface WorkerWatchOptions {
  /** How often the queues are looked at, in ms. Default 10,000. */
  intervalMs?: number;
  /** The models of the run's GPU queues, for the worker command (see `workerCommand`). */
  modelQueues?: readonly ModelQueue[];
}

/**
 * Looks every `intervalMs` at the queues a command waits on (those a producer fed, every
 * queue of the prefix for a retry): one with jobs waiting and no
 * worker connected at two looks in a row (a worker that is starting up, loading its model,
 * has had the time between) gets one line through `say`, naming the queue and the
 * `assay worker` command that serves it; once a worker serves it, it may be said again.
 * Without it a `produce --wait` or `retry --wait` with no worker on a queue waits at 0%
 * without a word.
 * Where Redis does not list its clients, nothing is said.
 */
export function watchForWorkers(
  queues: () => Promise<ServedQueue[]>,
  flags: DistributedFlags,
  say: (line: string) => void,
  options: WorkerWatchOptions = {},
): { stop(): void } {
  const intervalMs = options.intervalMs ?? 10_000;
  const unservedBefore = new Set<string>();
  const said = new Set<string>();
  let looking = false;
  const look = async (): Promise<void> => {
    for (const { queue, waiting, workers } of await queues()) {
      const unserved = workers === 0 && waiting > 0;
      if (!unserved) {
        unservedBefore.delete(queue);
        if (workers !== 0) said.delete(queue);
        continue;
      }
      if (unservedBefore.has(queue) && !said.has(queue)) {
        said.add(queue);
        say(
          `! No worker serves queue ${queue}: ${waiting} jobs wait there and none has been ` +
            `taken for ${Math.round(intervalMs / 1000)} s. Start one with: ` +
            workerCommand(queue, null, flags, options.modelQueues),
        );
      }
      unservedBefore.add(queue);
    }
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    // A look that fails (Redis going away) says nothing: the producer's own commands fail
    // on the same outage and end it with the reason.
    look()
      .catch(() => {})
      .finally(() => {
        looking = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
