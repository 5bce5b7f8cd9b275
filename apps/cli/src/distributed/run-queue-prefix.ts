import type { Store } from "@assay/store";
import { writeErr } from "../output.js";
import type { DistributedFlags } from "./distributed-options.js";

/**
 * The flags a command on one run (status, retry) works with: without `--queue-prefix`,
 * the prefix the run's producer enqueued under, so that the queues are found (and every
 * command printed names it); with one, that prefix, noting on stderr when the run was
 * produced under another.
 */
export async function withRunQueuePrefix<F extends DistributedFlags>(
  store: Pick<Store, "getProducer">,
  runId: string,
  flags: F,
  prefixGiven: boolean,
): Promise<F> {
  const recorded = (await store.getProducer(runId))?.queuePrefix;
  if (recorded === undefined || recorded === flags.queuePrefix) return flags;
  if (!prefixGiven) return { ...flags, queuePrefix: recorded };
  writeErr(
    `Note: run ${runId} was produced with --queue-prefix ${recorded}; looking under ${flags.queuePrefix}, as --queue-prefix says.\n`,
  );
  return flags;
}
